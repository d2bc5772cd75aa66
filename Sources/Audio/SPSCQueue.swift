import Synchronization

/// A bounded single-producer single-consumer ring of plain values, lock-free.
/// The audio thread must never wait for the main thread, so neither side ever blocks:
/// a full queue refuses the push (the caller drops the command) and an empty one returns nil.
/// Storage is allocated once; pushing and popping never allocate.
/// Contract: exactly one thread pushes and exactly one thread pops, for the queue's life.
public final class SPSCQueue<Element: BitwiseCopyable>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Element>
    private let mask: Int
    /// Next slot the consumer reads; written only by the consumer.
    private let head = Atomic<Int>(0)
    /// Next slot the producer writes; written only by the producer.
    private let tail = Atomic<Int>(0)

    /// capacity is rounded up to a power of two so the index wraps with a mask.
    public init(capacity: Int) {
        var size = 2
        while size < max(2, capacity) { size <<= 1 }
        storage = .allocate(capacity: size)
        mask = size - 1
    }

    deinit { storage.deallocate() }

    public var capacity: Int { mask + 1 }

    /// Producer side. False when full: the element was not queued.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        if t - h > mask { return false }
        (storage + (t & mask)).initialize(to: element)
        // Releasing: the element's bytes are visible before the consumer sees the new tail.
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Consumer side. Nil when empty.
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        if h == t { return nil }
        let element = storage[h & mask]
        head.store(h + 1, ordering: .releasing)
        return element
    }

    /// Either side; a snapshot that may be stale by the time it is read.
    public var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }
}
