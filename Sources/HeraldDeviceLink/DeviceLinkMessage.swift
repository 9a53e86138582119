// The device link's messages and client live here (docs/device-link.md).
