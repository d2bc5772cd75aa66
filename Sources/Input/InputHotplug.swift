#if canImport(Glibc)
import Glibc
#endif
import Platform

/// inotify on /dev/input: event* nodes appearing, changing permissions and going away.
/// When the directory itself is missing (no input devices yet, or a minimal container) the
/// parent is watched until it appears.
public final class InputHotplug {
    public enum Change: Equatable, Sendable {
        case created(String)
        /// Permissions or ownership changed: udev has just finished with a new node.
        case attributesChanged(String)
        case deleted(String)
        /// The watched directory appeared (or was re-created): rescan it.
        case directoryAppeared
        case directoryGone
    }

    public let directory: String
    public let fd: FileDescriptor
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1

    public init(directory: String) throws(SystemError) {
        self.directory = directory
        fd = FileDescriptor(rawValue: try retryingEINTR("inotify_init1", directory) {
            inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        })
        if !watchDirectory() { watchParent() }
    }

    deinit {
        fd.close()
    }

    public var isWatchingDirectory: Bool { directoryWatch >= 0 }

    @discardableResult
    private func watchDirectory() -> Bool {
        let mask = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_ATTRIB) | UInt32(IN_MOVED_TO)
            | UInt32(IN_MOVED_FROM) | UInt32(IN_DELETE_SELF) | UInt32(IN_ONLYDIR)
        directoryWatch = inotify_add_watch(fd.rawValue, directory, mask)
        return directoryWatch >= 0
    }

    private func watchParent() {
        guard parentWatch < 0 else { return }
        let parent = Files.directoryName(directory)
        parentWatch = inotify_add_watch(fd.rawValue, parent, UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ONLYDIR))
    }

    private var leafName: String {
        guard let slash = directory.lastIndex(of: "/") else { return directory }
        return String(directory[directory.index(after: slash)...])
    }

    /// Everything inotify has queued.
    public func readChanges() -> [Change] {
        var changes: [Change] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        do {
            while let count = try fd.read(into: &buffer, "inotify \(directory)"), count > 0 {
                parse(buffer, count: count, into: &changes)
            }
        } catch {
            Log.warning("input: \(error)")
        }
        return changes
    }

    private func parse(_ buffer: [UInt8], count: Int, into changes: inout [Change]) {
        let headerSize = MemoryLayout<inotify_event>.size
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset + headerSize <= count {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameStart = offset + headerSize
                guard nameStart + length <= count else { break }
                let nameBytes = raw[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset = nameStart + length
                handle(wd: wd, mask: mask, name: name, into: &changes)
            }
        }
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into changes: inout [Change]) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Events were lost: a rescan finds what changed.
            changes.append(.directoryAppeared)
            return
        }
        if wd == parentWatch && wd >= 0 {
            if name == leafName && mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0, watchDirectory() {
                inotify_rm_watch(fd.rawValue, parentWatch)
                parentWatch = -1
                changes.append(.directoryAppeared)
            }
            return
        }
        guard wd == directoryWatch && wd >= 0 else { return }
        if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_IGNORED)) != 0 {
            directoryWatch = -1
            changes.append(.directoryGone)
            watchParent()
            return
        }
        guard !name.isEmpty else { return }
        if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 {
            changes.append(.created(name))
        } else if mask & (UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) != 0 {
            changes.append(.deleted(name))
        } else if mask & UInt32(IN_ATTRIB) != 0 {
            changes.append(.attributesChanged(name))
        }
    }
}
