// Provider tokens and signing keys live in HeraldJWT (a module without X.509, which the fuzz targets and web push's VAPID
// use alone); every module that authenticates providers imports HeraldAuth and finds them here too.
@_exported import HeraldJWT
