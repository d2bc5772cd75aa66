#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads and crash-safe writes, without Foundation.
public enum Files {
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A regular file itself: not a link (to anything), a FIFO, a device or a directory.
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    public static func readBytes(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        defer { fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try fd.read(into: &chunk, path) ?? 0
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    public static func readText(_ path: String) throws(SystemError) -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// Writes so that a power cut leaves either the old file or the new one, never half:
    /// temp file, fsync, rename over the target, fsync the directory. `durable: false`
    /// skips the fsyncs (a file in RAM, rewritten often: a reader still never sees half of
    /// it); `exactMode` sets `mode` whatever the process's umask (a file another user reads).
    public static func writeAtomically(_ path: String, bytes: [UInt8], mode: mode_t = 0o644,
                                       durable: Bool = true, exactMode: Bool = false)
        throws(SystemError)
    {
        let temp = path + ".tmp"
        let fd = try FileDescriptor.open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: mode)
        do {
            if exactMode { try retryingEINTR("fchmod", temp) { fchmod(fd.rawValue, mode) } }
            try fd.writeAll(bytes, temp)
            if durable { try retryingEINTR("fsync", temp) { fsync(fd.rawValue) } }
        } catch {
            fd.close()
            unlink(temp)
            throw error
        }
        fd.close()
        do {
            try retryingEINTR("rename", "\(temp) -> \(path)") { rename(temp, path) }
        } catch {
            unlink(temp)
            throw error
        }
        guard durable else { return }
        let dir = directoryName(path)
        if let directory = try? FileDescriptor.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
            _ = fsync(directory.rawValue)
            directory.close()
        }
    }

    public static func writeAtomically(_ path: String, text: String) throws(SystemError) {
        try writeAtomically(path, bytes: Array(text.utf8))
    }

    /// Creates a directory and its parents; an existing directory is fine.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw SystemError("mkdir", prefix)
            }
            prefix += "/"
        }
    }

    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = path[..<slash]
        return dir.isEmpty ? "/" : String(dir)
    }

    public static func listDirectory(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
