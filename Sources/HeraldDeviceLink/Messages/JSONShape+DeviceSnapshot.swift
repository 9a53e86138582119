// Computed, not `static let`: a global holding an indirect enum keeps its boxes through pointers with the enum's tag
// in their spare bits, which LeakSanitizer does not take for pointers, so the fuzz build (Fuzz/run.sh) reported every
// box as leaked. A `screen` is checked rarely (when the device's screen changes); building the shape then costs little.
extension JSONShape {
    /// A `screen`: the device's `DeviceSnapshot` (module HeraldSimulator) as `JSONEncoder` writes it with dates in
    /// seconds since 1970 — docs/device-link.md, "screen", lists the same members.
    ///
    /// Only what decoding a `DeviceSnapshot` requires is checked; members it does not know are allowed.
    static var deviceSnapshot: JSONShape {
        JSONShape.object([
            .required("name", .string),
            .required("capturedAt", .number),
            .required("apps", .array(app)),
        ])
    }

    /// `AppSnapshot`: one app.
    static var app: JSONShape {
        JSONShape.object([
            .required("bundleID", .string),
            .required("name", .string),
            .required("environment", .oneOf(["sandbox", "production"])),
            .required("deviceToken", .string),
            .required("state", .oneOf(["notRunning", "foreground", "background", "suspended", "terminatedByUser"])),
            .required("authorization", .oneOf(["notDetermined", "denied", "authorized", "provisional", "ephemeral"])),
            .required(
                "categories",
                .array(
                    .object([
                        .required("identifier", .string),
                        .required(
                            "actions",
                            .array(.object([.required("identifier", .string), .required("title", .string), .required("options", .array(.string))]))
                        ),
                        .required("options", .array(.string)),
                    ])
                )
            ),
            .required("center", center),
            .required("apnsIDs", .map(.uuid)),
            .optional("activities", .array(activity)),
            .optional("activityViews", .map(.object([.optional("title", .string), .required("lines", .array(.string))]))),
        ])
    }

    /// `NotificationCenterSnapshot`: an app's Notification Center, badge, schedule and expanded content extension.
    static var center: JSONShape {
        JSONShape.object([
            .required("bundleIdentifier", .string),
            .required("capturedAt", .number),
            .required("appState", .oneOf(["notRunning", "foreground", "background", "suspended", "terminatedByUser"])),
            .required("authorizationStatus", .integer),
            .optional("badge", .integer),
            .required("threads", .array(.object([.required("threadIdentifier", .string), .required("notifications", .array(notification))]))),
            .required(
                "pending",
                .array(
                    .object([
                        .required("identifier", .string),
                        .required("trigger", .string),
                        .optional("nextFireDate", .number),
                        .required("title", .string),
                    ])
                )
            ),
            .optional("expandedContentExtension", contentExtension),
        ])
    }

    /// `NotificationCenterSnapshot.Notification`: one delivered notification.
    static var notification: JSONShape {
        JSONShape.object([
            .required("identifier", .string),
            .required("date", .number),
            .required("title", .string),
            .required("subtitle", .string),
            .required("body", .string),
            .optional("badge", .integer),
            .optional("sound", .string),
            .required("categoryIdentifier", .string),
            .required("threadIdentifier", .string),
            .required("interruptionLevel", .string),
            .required("relevanceScore", .number),
            .optional("targetContentIdentifier", .string),
            .required("isRemote", .bool),
            .required("presentedAsBanner", .bool),
            .required(
                "attachments",
                .array(
                    .object([
                        .required("identifier", .string),
                        .required("type", .string),
                        .required("fileName", .string),
                        .required("size", .integer),
                        .required("thumbnailHidden", .bool),
                        .optional("thumbnailClippingRect", .array(.number)),
                        .optional("thumbnailTime", .number),
                        .optional("thumbnail", .string),
                    ])
                )
            ),
            .required("actions", .array(.object([.required("identifier", .string), .required("title", .string), .required("options", .integer)]))),
            .optional("contentExtension", .string),
        ])
    }

    /// `ActivitySnapshot`: a Live Activity on the lock screen.
    static var activity: JSONShape {
        JSONShape.object([
            .required("id", .string),
            .required("typeName", .string),
            .required("attributes", .string),
            .required("contentState", .string),
            .required("state", .oneOf(["active", "stale", "ended", "dismissed"])),
            .optional("staleDate", .number),
            .required("relevanceScore", .number),
            .optional("pushToken", .string),
            .optional("channelID", .string),
            .optional("dismissAt", .number),
        ])
    }

    /// `ContentExtensionRendering`: the expanded interface a content extension drew.
    static var contentExtension: JSONShape {
        JSONShape.object([
            .required("extensionName", .string),
            .required("notificationIdentifier", .string),
            .required("headerTitle", .string),
            .required("lines", .array(.string)),
            .required("size", .array(.number)),
            .required("showsDefaultContent", .bool),
            .required("defaultContent", .array(.string)),
            .required("userInteractionEnabled", .bool),
            .optional(
                "mediaButton",
                .object([
                    .required("type", .integer), .required("frame", .array(.number)), .required("tint", .string), .required("isPlaying", .bool),
                ])
            ),
            .required("actions", .array(.string)),
        ])
    }
}
