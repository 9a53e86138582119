import ServiceLifecycle

/// Runs `pass` now and then once every `interval`, until the task is cancelled or the service group shuts down
/// gracefully (a sleep in progress ends at once). The loop of the server's periodic services.
func runPeriodically(every interval: Duration, _ pass: () async -> Void) async {
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
        await pass()
        do {
            try await cancelWhenGracefulShutdown {
                try await Task.sleep(for: interval)
            }
        } catch {
            return
        }
    }
}
