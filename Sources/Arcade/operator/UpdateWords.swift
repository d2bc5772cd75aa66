/// RAUC's progress steps and errors in the operator's words, in both languages. RAUC
/// speaks to developers ("Copying image to rootfs.1", "signature verification failed:
/// unable to get local issuer certificate"); its own words go to the journal
/// (`RaucUpdater`), the page says what it means for the cabinet. The texts matched are
/// rauc 1.8's (bookworm) and 1.13's (trixie): its install steps and its error messages.
extension OperatorWords {
    func installing(_ percent: Int, _ step: String) -> String {
        t("Installing: \(percent) % — \(installStep(step))", "安装中：\(percent)% — \(installStep(step))")
    }

    func updateFailed(_ why: String) -> String { t("Not installed: \(updateProblem(why))", "未安装：\(updateProblem(why))") }

    /// One of RAUC's progress steps ("Copying image to rootfs.1", "Checking slot rootfs.1
    /// done.") as what the cabinet is doing.
    func installStep(_ raw: String) -> String {
        let s = raw.lowercased()
        func has(_ words: String...) -> Bool { words.contains { s.hasPrefix($0) } }
        if s.isEmpty || s == "installing" { return t("starting", "开始") }
        if has("installing done") || s.hasPrefix("installing `") && s.contains("succeeded") { return t("done", "完成") }
        if has("installing failed") || s.hasPrefix("installing `") && s.contains("failed") { return t("stopped", "已停止") }
        if has("determining slot states") { return t("reading this cabinet's partitions", "读取本机的系统分区") }
        if has("checking bundle", "verifying signature", "verifying bundle", "checking and mounting bundle") {
            return t("checking the update's signature", "核对更新文件的签名")
        }
        if has("checking manifest", "loading manifest", "mounting bundle") { return t("reading what the update holds", "读取更新内容") }
        if has("determining target install group") { return t("choosing the partition to write", "选择要写入的分区") }
        if has("copying image") { return t("copying the new system", "复制新系统") }
        if has("marking", "marked") { return t("setting the new system to start next", "设定下次启动新系统") }
        if has("launching update handler", "running bundle hook", "running slot") {
            return t("running the update's own steps", "运行更新自带的步骤")
        }
        if has("updating slot", "checking slot", "checking image type", "mounting", "unmounting") {
            return t("preparing the other system partition", "准备另一个系统分区")
        }
        return t("working (the journal has the details)", "进行中（详情见系统日志）")
    }

    /// Why RAUC (or the way to it: busctl, the D-Bus service) refused, in a sentence for
    /// the operator; anything not known here says to look in the journal.
    func updateProblem(_ raw: String) -> String {
        let s = raw.lowercased()
        func has(_ words: String...) -> Bool { words.contains { s.contains($0) } }
        if has("compatible mismatch") {
            return t("the update is made for another kind of cabinet.", "这个更新是给另一种机型的。")
        }
        if has("signature verification failed", "failed to verify x509", "signer certificate", "certificate", "keyring") {
            return t("the update's signature is not valid (it was not signed for this cabinet).",
                     "更新文件的签名无效（不是为本机签发的）。")
        }
        if has("does not fit", "no space left") {
            return t("the update is too big for the system partition.", "更新太大，系统分区放不下。")
        }
        if has("rauc busy", "already processing", "busy") {
            return t("another update is running: try again when it has ended.", "另一个更新正在进行：结束后再试。")
        }
        if has("failed to open bundle", "no such file", "not a regular file", "input/output error", "failed to mount",
               "failed mounting") {
            return t("the update file could not be read (was the USB stick taken out?).", "读不到更新文件（U盘被拔出了吗？）。")
        }
        if has("failed to load manifest", "failed to parse signature", "invalid manifest", "verification failed at",
               "verification of", "payload size", "squashfs", "bundle format") {
            return t("the update file is damaged or is not an update.", "更新文件已损坏，或者不是更新文件。")
        }
        if has("min-bundle-version", "is older than") {
            return t("this cabinet does not take a version that old.", "本机不接受这么旧的版本。")
        }
        if has("install-check hook") { return t("the update's own check refused this cabinet.", "更新自带的检查拒绝了本机。") }
        if has("booted slot", "boot states", "target group", "slot device", "destination device", "bootname") {
            return t("this cabinet's partitions are not set up for updates: call service.", "本机的分区没有为更新设置好：请联系维修。")
        }
        if has("failed to connect to bus", "serviceunknown", "not provided by any", "not activatable", "could not activate",
               "unit dbus-org") {
            return t("the update service is not running: call service.", "更新服务没有运行：请联系维修。")
        }
        if has("access denied", "permission denied", "not allowed") {
            return t("the kiosk may not install updates here: call service.", "游戏机在这里没有安装更新的权限：请联系维修。")
        }
        return t("the updater reported a problem; see the journal for its words.", "更新程序报告了问题，详情见系统日志。")
    }
}
