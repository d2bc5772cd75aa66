import CLinux

/// glibc's view of the heap (mallinfo2), for telling a leak (bytes in use keep rising)
/// from fragmentation (free bytes held inside the heap) and from big blocks that went
/// straight to mmap.
public struct MallocStats: Sendable {
    /// Bytes the main arena got from the system with brk (sbrk'd heap).
    public var arena: Int
    /// Bytes handed out by malloc and not freed yet (all arenas).
    public var inUse: Int
    /// Bytes free inside the heap: held by the process, counted in RSS once touched.
    public var free: Int
    /// Bytes in blocks mmap'd one by one (128 KB and up by default).
    public var mmapped: Int
    /// Free bytes at the top of the heap that malloc_trim could give back.
    public var releasable: Int

    public static func current() -> MallocStats {
        let m = mallinfo2()
        return MallocStats(arena: Int(m.arena), inUse: Int(m.uordblks), free: Int(m.fordblks),
                           mmapped: Int(m.hblkhd), releasable: Int(m.keepcost))
    }
}

/// Gives the heap's free pages back to the kernel (malloc_trim: the top of the heap and
/// every whole free page inside it). glibc keeps freed memory resident otherwise, so a
/// heap that once held a big moment (a scene being built while the old one still lives)
/// stays that big in RSS. Costs a walk of the free lists and a page fault per page
/// reused later: meant for moments like a scene change, not for every frame.
@discardableResult
public func releaseFreeHeap() -> Bool {
    malloc_trim(0) == 1
}
