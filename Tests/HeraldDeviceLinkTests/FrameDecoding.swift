import HeraldDeviceLink

/// The error a device's frame gets from the server's reader, or `nil` when it reads.
func decodingError(_ text: String) -> DeviceLinkError? {
    do {
        _ = try DeviceLinkClientMessage(frame: Array(text.utf8))
        return nil
    } catch {
        return error
    }
}

/// The error a server's frame gets from the device's reader, or `nil` when it reads.
func serverDecodingError(_ text: String) -> DeviceLinkError? {
    do {
        _ = try DeviceLinkServerMessage(frame: Array(text.utf8))
        return nil
    } catch {
        return error
    }
}
