/// Entries by key in order of last use, each with a cost (bytes): the one eviction order
/// every cache in Graphics uses. The owner says when to let the oldest go; lookups,
/// inserts and evictions are O(1) (a list through an array of nodes, no scan).
struct RecentlyUsed<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var older = -1, newer = -1
    }
    /// Nil where an entry was let go (its value released at once); reused by the next insert.
    private var nodes: [Node?] = []
    private var unused: [Int] = []
    private var index: [Key: Int] = [:]
    private var oldest = -1, newest = -1
    /// The entries' costs added up.
    private(set) var cost = 0

    var count: Int { index.count }
    var isEmpty: Bool { index.isEmpty }
    func contains(_ key: Key) -> Bool { index[key] != nil }

    /// The value kept for `key`, now the most recently used; nil when there is none.
    mutating func use(_ key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        unlink(i)
        linkNewest(i)
        return nodes[i]!.value
    }

    /// Keeps `value` as the most recently used (replacing one kept under `key`).
    mutating func insert(_ key: Key, _ value: Value, cost: Int) {
        if let i = index[key] {
            self.cost += cost - nodes[i]!.cost
            nodes[i]!.value = value
            nodes[i]!.cost = cost
            unlink(i)
            linkNewest(i)
            return
        }
        let node = Node(key: key, value: value, cost: cost)
        let i: Int
        if let reused = unused.popLast() { nodes[reused] = node; i = reused } else { nodes.append(node); i = nodes.count - 1 }
        index[key] = i
        self.cost += cost
        linkNewest(i)
    }

    /// Lets the least recently used entry go and returns it.
    @discardableResult
    mutating func removeOldest() -> (key: Key, value: Value, cost: Int)? {
        guard oldest >= 0 else { return nil }
        let i = oldest
        unlink(i)
        let node = nodes[i]!
        nodes[i] = nil
        index.removeValue(forKey: node.key)
        cost -= node.cost
        unused.append(i)
        if index.isEmpty { nodes.removeAll(keepingCapacity: true); unused.removeAll(keepingCapacity: true) }
        return (node.key, node.value, node.cost)
    }

    private mutating func unlink(_ i: Int) {
        let older = nodes[i]!.older, newer = nodes[i]!.newer
        if older >= 0 { nodes[older]!.newer = newer } else { oldest = newer }
        if newer >= 0 { nodes[newer]!.older = older } else { newest = older }
        nodes[i]!.older = -1
        nodes[i]!.newer = -1
    }

    private mutating func linkNewest(_ i: Int) {
        nodes[i]!.older = newest
        nodes[i]!.newer = -1
        if newest >= 0 { nodes[newest]!.newer = i } else { oldest = i }
        newest = i
    }
}
