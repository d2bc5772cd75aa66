/// The operator's words for the System tab and the "Update from USB" page.
extension OperatorWords {
    var systemTab: String { t("System", "系统") }
    var versionRow: String { t("Version", "版本") }
    var imageRow: String { t("Image", "系统映像") }
    var slotRow: String { t("Root slot", "系统分区") }
    var unknown: String { t("unknown", "未知") }
    func shown(_ value: String) -> String { value == SystemVersion.unknown ? unknown : value }
    var updateFromUSB: String { t("Update from USB", "从U盘更新") }
    var update: String { t("Update", "更新") }
    var noBundle: String { t("No update on a USB stick", "U盘上没有更新") }
    var bundleRow: String { t("Update file", "更新文件") }
    var bundleVersion: String { t("Its version", "更新版本") }
    var thisCabinet: String { t("This cabinet", "本机") }
    func versionAndSlot(_ v: SystemVersion) -> String {
        v.slot == SystemVersion.unknown ? shown(v.version) : t("\(shown(v.version)) (slot \(v.slot))", "\(shown(v.version))（分区 \(v.slot)）")
    }
    var reading: String { t("Reading…", "读取中…") }
    var install: String { t("Install", "安装") }
    func installQuestion(_ version: String) -> String { t("Install version \(version)?", "安装版本 \(version)？") }
    var installMessage: String {
        t("It is written beside the running system; the games keep running. The new version starts when the cabinet restarts, and if it fails to start, the cabinet goes back to this one by itself.",
          "新版本写入另一个系统分区，游戏照常运行。重启后启用新版本；如果新版本启动失败，会自动回到现在的版本。")
    }
    func downgradeQuestion(_ version: String, running: String) -> String {
        t("Go back to the older version \(version)? (this cabinet runs \(running))", "退回到旧版本 \(version)？（本机是 \(running)）")
    }
    var downgradeMessage: String {
        t("An older version lacks the fixes made since. Install it only when the newer one misbehaves; scores, coins and settings stay.",
          "旧版本没有之后的修复。只在新版本有问题时安装；分数、投币和设置都会保留。")
    }
    var downgrade: String { t("Go back", "退回") }
    func installedMessage(_ version: String) -> String {
        t("Version \(version) is installed. Restart the cabinet to start it.", "版本 \(version) 已安装。重启后启用。")
    }
}
