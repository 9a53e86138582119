// Apple's UserNotifications module re-exports Foundation: a file that imports only
// UserNotifications may use `URL`, `Data`, `DispatchQueue`. So does this one.
// (URLSession is in FoundationNetworking on Linux, which is not re-exported: see
// docs/device-runtime.md, "What unchanged means".)
@_exported import Foundation
