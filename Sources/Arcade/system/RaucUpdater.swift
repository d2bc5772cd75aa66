#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The cabinet's updater: RAUC's service, reached over the system D-Bus (policy for the
/// kiosk's group: systemd/boardwalk-rauc.conf). The bundle's version comes from the
/// service's `Info` method (`busctl`: the service, as root, checks the signature and reads
/// the manifest; the kiosk's sandbox could not), the install from `rauc install`, whose
/// progress lines ("40% Copying image") the page shows and whose exit status is the
/// result. Each runs on its own thread; `poll` reads the state under a lock.
public final class RaucUpdater: SystemUpdater, @unchecked Sendable {
    let busctl: String
    let rauc: String
    let mountsPath: String
    private var lock = pthread_mutex_t()
    private var current = UpdateState.idle

    public init(busctl: String = "/usr/bin/busctl", rauc: String = "/usr/bin/rauc", mountsPath: String = "/proc/self/mounts") {
        self.busctl = busctl
        self.rauc = rauc
        self.mountsPath = mountsPath
        pthread_mutex_init(&lock, nil)
    }

    deinit { pthread_mutex_destroy(&lock) }

    public var bundleFinder: @Sendable () -> [String] {
        { [mountsPath] in USBBundles.find(mounts: (try? Files.readText(mountsPath)) ?? "") }
    }

    public func poll() -> UpdateState {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return current
    }

    public var isWorking: Bool { poll().isBusy }

    private func set(_ state: UpdateState) {
        pthread_mutex_lock(&lock)
        current = state
        pthread_mutex_unlock(&lock)
    }

    public func inspect(_ bundle: String) {
        guard !poll().isBusy else { return }
        set(.inspecting(bundle: bundle))
        let busctl = self.busctl
        background("update-info", bundle) { [weak self] in
            let result = Subprocess.run([busctl, "--system", "--json=short", "call", "de.pengutronix.rauc", "/",
                                         "de.pengutronix.rauc.Installer", "Info", "s", bundle])
            let state: UpdateState
            switch Self.parseInfo(result) {
            case .success(let version): state = .ready(bundle: bundle, version: version)
            case .failure(let problem): state = .failed(bundle: bundle, reason: problem.description)
            }
            self?.set(state)
            Log.info("update: \(bundle): \(state)")
        }
    }

    public func install(_ bundle: String) {
        guard case .ready(let ready, let version) = poll(), ready == bundle else { return }
        set(.installing(bundle: bundle, version: version, percent: 0, step: ""))
        Log.notice("update: installing \(bundle) (version \(version)) from the operator menu")
        let rauc = self.rauc
        background("update-install", bundle) { [weak self] in
            // RAUC's own words go to the journal; the page shows them in the operator's
            // (`OperatorWords.installStep`, `updateProblem`).
            var last = "", lastError = ""
            let result = Subprocess.run([rauc, "install", bundle]) { line in
                let text = line.trimmed
                guard !text.isEmpty else { return }
                last = text
                // rauc install ends a failure with "LastError: why" and then "Installing `x` failed".
                if text.hasPrefix("LastError:") { lastError = String(text.dropFirst("LastError:".count)).trimmed }
                if let (percent, step) = Self.parseProgress(text) {
                    Log.info("update: rauc: \(text)")
                    self?.set(.installing(bundle: bundle, version: version, percent: percent, step: step))
                }
            }
            // The state first, then the log line: who reads the journal finds the page there.
            if result.status == 0 {
                self?.set(.installed(bundle: bundle, version: version))
                Log.notice("update: \(bundle) installed (version \(version)); it starts at the next boot")
            } else {
                let reason = Self.failureReason(lastError.isEmpty ? last : lastError, result)
                self?.set(.failed(bundle: bundle, reason: reason))
                Log.warning("update: installing \(bundle) failed: \(reason)")
            }
        }
    }

    private func background(_ name: String, _ bundle: String, _ body: @escaping @Sendable () -> Void) {
        do { try runInBackground(name, nice: 5, body) } catch {
            set(.failed(bundle: bundle, reason: "\(error)"))
        }
    }

    /// busctl's JSON answer to Info: {"type":"ss","data":["COMPATIBLE","VERSION"]}.
    static func parseInfo(_ result: Subprocess.Result) -> Result<String, Bookkeeping.Problem> {
        guard result.status == 0 else {
            return .failure(Bookkeeping.Problem(description: failureReason("", result)))
        }
        let firstLine = result.output.split(separator: "\n").first.map(String.init) ?? ""
        guard let json = try? JSONValue.parse(firstLine), case .array(let data)? = json["data"], data.count == 2,
              case .string(let version) = data[1] else {
            return .failure(Bookkeeping.Problem(description: "rauc's answer was not understood: \(firstLine.prefix(120))"))
        }
        return .success(version.isEmpty ? SystemVersion.unknown : SystemVersion.clean(version))
    }

    /// "  40% Copying image to rootfs.1" -> (40, "Copying image to rootfs.1").
    static func parseProgress(_ line: String) -> (Int, String)? {
        let text = line.trimmed
        guard let percentSign = text.firstIndex(of: "%"), let percent = Int(text[..<percentSign]),
              (0...100).contains(percent) else { return nil }
        return (percent, String(text[text.index(after: percentSign)...]).trimmed)
    }

    /// The last thing the tool said, or how it ended.
    static func failureReason(_ lastLine: String, _ result: Subprocess.Result) -> String {
        let said = lastLine.isEmpty ? (result.output.split(separator: "\n").last.map(String.init) ?? "") : lastLine
        if let spawnError = result.spawnError { return spawnError }
        let how = result.status >= 0 ? "exit status \(result.status)" : "killed by signal \(-result.status)"
        return said.isEmpty ? how : String(said.trimmed.prefix(200))
    }
}

/// Runs a program with stdout and stderr on one pipe, reading its lines as they come.
/// Blocks: call it off the run loop.
enum Subprocess {
    struct Result {
        /// Exit status, or minus the signal that killed it; -1 when it never started.
        var status: Int32
        var output: String
        var spawnError: String?
    }

    static func run(_ arguments: [String], line: ((String) -> Void)? = nil) -> Result {
        // Neither end leaks into other programs (close-on-exec); the child gets the write end as 1 and 2.
        let pipe: (read: FileDescriptor, write: FileDescriptor)
        do { pipe = try FileDescriptor.pipe() } catch {
            return Result(status: -1, output: "", spawnError: "\(error)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe.write.rawValue, 1)
        posix_spawn_file_actions_adddup2(&actions, pipe.write.rawValue, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment: [String] = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C.UTF-8"]
        let env: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { env.forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, env)
        pipe.write.close()
        guard rc == 0 else {
            pipe.read.close()
            return Result(status: -1, output: "", spawnError: "\(arguments[0]): \(String(cString: strerror(rc)))")
        }
        var output: [UInt8] = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let n = try? pipe.read.read(into: &buffer), n > 0 {
            output += buffer[0..<n]
            // rauc rewrites its progress line with \r on a terminal; split on both.
            for byte in buffer[0..<n] {
                if byte == 10 || byte == 13 {
                    line?(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                } else {
                    pending.append(byte)
                }
            }
        }
        if !pending.isEmpty { line?(String(decoding: pending, as: UTF8.self)) }
        pipe.read.close()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
        return Result(status: code, output: String(decoding: output, as: UTF8.self))
    }
}
