import Foundation

// ActivityKit's asynchronous sequences, with Apple's names. Each wraps a stream of the center's events; the content
// travels as JSON and is decoded in the iterator, so `ContentState` need not be `Sendable`.

extension Activity {
    /// A sequence of push tokens (an activity's, or a type's push-to-start token).
    public struct PushTokenUpdates: AsyncSequence, Sendable {
        /// A token.
        public typealias Element = Data
        let stream: AsyncStream<Data>

        /// Iterates the tokens.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Data>.Iterator
            /// The next token; `nil` when the sequence ends.
            public mutating func next() async -> Data? { await base.next() }
        }

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }

    /// A sequence of an activity's states.
    public struct ActivityStateUpdates: AsyncSequence, Sendable {
        /// A state.
        public typealias Element = ActivityState
        let stream: AsyncStream<ActivityState>

        /// Iterates the states.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<ActivityState>.Iterator
            /// The next state; `nil` when the sequence ends.
            public mutating func next() async -> ActivityState? { await base.next() }
        }

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }

    /// A sequence of an activity's contents.
    public struct ContentUpdates: AsyncSequence, Sendable {
        /// A content.
        public typealias Element = ActivityContent<Activity<Attributes>.ContentState>
        let stream: AsyncStream<ActivityRecord>

        /// Iterates the contents.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<ActivityRecord>.Iterator
            /// The next content (a state that no longer decodes is skipped); `nil` when the sequence ends.
            public mutating func next() async -> ActivityContent<Activity<Attributes>.ContentState>? {
                while let record = await base.next() {
                    if let content = try? Activity.content(of: record) { return content }
                }
                return nil
            }
        }

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }

    /// A sequence of the activities of a type as they start.
    public struct ActivityUpdates: AsyncSequence, Sendable {
        /// An activity.
        public typealias Element = Activity<Attributes>
        let stream: AsyncStream<Activity<Attributes>>

        /// Iterates the activities.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Activity<Attributes>>.Iterator
            /// The next activity; `nil` when the sequence ends.
            public mutating func next() async -> Activity<Attributes>? { await base.next() }
        }

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }
}

// iOS 16.1's instance API, deprecated in 16.2 in favour of `ActivityContent`, still used by SDKs.
extension Activity {
    /// Its dynamic state now.
    @available(iOS, introduced: 16.1, deprecated: 16.2, renamed: "content")
    public var contentState: Activity<Attributes>.ContentState { content.state }

    /// Changes its state, with no stale date, and shows an alert if given.
    @available(iOS, introduced: 16.1, deprecated: 16.2, renamed: "update(_:alertConfiguration:)")
    public func update(using contentState: Activity<Attributes>.ContentState, alertConfiguration: AlertConfiguration? = nil) async {
        await update(ActivityContent(state: contentState, staleDate: nil), alertConfiguration: alertConfiguration)
    }

    /// Ends it, with a final state if given.
    @available(iOS, introduced: 16.1, deprecated: 16.2, renamed: "end(_:dismissalPolicy:)")
    public func end(using contentState: Activity<Attributes>.ContentState? = nil, dismissalPolicy: ActivityUIDismissalPolicy = .default) async {
        await end(contentState.map { ActivityContent(state: $0, staleDate: nil) }, dismissalPolicy: dismissalPolicy)
    }
}
