// Every module the fuzz targets import, in one target: Fuzz/run.sh builds it first, in one build, so that independent
// modules (NIO, swift-crypto's BoringSSL, Herald's) compile side by side; then each target, which is then its own small
// file and a link. (Building the whole package at once would build every product of the root package it names, the
// server and its tools among them.)
import Crypto
import HeraldCore
import HeraldDeviceLink
import HeraldHTTP2
import HeraldJWT
import HeraldWebPush
import NIOCore
import NIOWebSocket
