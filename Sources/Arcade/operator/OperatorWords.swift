import UI

/// Every word of the operator's pages, dialogs and counters in the kiosk's language: the
/// operator menu follows `kiosk.language` like the rest of the kiosk.
struct OperatorWords {
    let language: Language
    init(_ language: Language) { self.language = language }

    func t(_ english: String, _ chinese: String) -> String { language == .chinese ? chinese : english }

    // Common
    var done: String { t("Done", "完成") }
    var cancel: String { t("Cancel", "取消") }
    var ok: String { t("OK", "确定") }
    var on: String { t("On", "开") }
    var off: String { t("Off", "关") }
    var go: String { t("Go", "开始") }
    var notAvailable: String { t("n/a", "无") }

    // PIN
    var operatorTitle: String { t("Operator", "管理") }
    var enterPIN: String { t("Enter PIN", "输入密码") }
    var checkingPIN: String { t("Checking…", "正在核对…") }
    func wrongPIN(_ triesLeft: Int) -> String { t("Wrong PIN (\(triesLeft) tries left)", "密码错误（还可试 \(triesLeft) 次）") }
    var lockedOut: String { t("Locked: try again later", "已锁定：请稍后再试") }

    // Tabs and rows
    var screenTab: String { t("Screen", "屏幕") }
    var gamesTab: String { t("Games", "游戏") }
    var serviceTab: String { t("Service", "维护") }
    var volume: String { t("Volume", "音量") }
    var brightness: String { t("Brightness", "亮度") }
    var rotation: String { t("Rotation", "旋转") }
    var languageRow: String { t("Language", "语言") }
    var switchLanguage: String { t("Switch", "切换") }
    var touchCalibration: String { t("Touch calibration", "触摸校准") }
    func tapTheCross(_ n: Int, of count: Int) -> String {
        t("Tap the centre of the cross (\(n) of \(count))", "点十字的中心（第 \(n) 个，共 \(count) 个）")
    }
    var tapsDisagree: String { t("Those taps disagree: once more, slowly.", "这几下对不上：请再慢慢点一遍。") }
    var idleToMenu: String { t("Idle to menu", "空闲回菜单") }
    var menuToAttract: String { t("Menu to attract", "菜单到演示") }
    var zombiesDifficulty: String { t("Beat Zombies: difficulty", "打僵尸：难度") }
    func seconds(_ n: Int) -> String { t("\(n) s", "\(n) 秒") }
    var exitToConsole: String { t("Exit to console", "退出到控制台") }
    var exit: String { t("Exit", "退出") }
    var restart: String { t("Restart", "重启") }
    var stateNotWritable: String {
        t("Scores, settings and coins cannot be saved: the state partition is full or read-only. Call service.",
          "无法保存分数、设置和投币：状态分区已满或只读。请联系维修。")
    }
    var exitQuestion: String { t("Exit to console?", "退出到控制台？") }
    var exitMessage: String {
        t("Exit: the kiosk stops and tty1 shows a login prompt ('sudo systemctl start boardwalk' or a reboot brings it back). Restart: the kiosk starts again at once.",
          "退出：游戏机停止，tty1 显示登录提示（运行 'sudo systemctl start boardwalk' 或重启板子即可回来）。重启：游戏机马上重新启动")
    }

    // High scores
    var highScores: String { t("High scores", "排行榜") }
    var tables: String { t("Tables", "管理") }
    var clear: String { t("Clear", "清除") }
    var clearAll: String { t("Clear all", "全部清除") }
    var allTables: String { t("All tables", "所有排行榜") }
    var clearAllQuestion: String { t("Clear every high-score table?", "清除所有排行榜？") }
    func clearQuestion(_ table: String) -> String { t("Clear the \(table) table?", "清除“\(table)”排行榜？") }
    var cannotUndo: String { t("The entries and best scores are gone for good.", "记录和最高分将永久删除。") }
    func entries(_ n: Int) -> String { t(n == 1 ? "1 entry" : "\(n) entries", "\(n) 条") }

    // Coins and credits
    var coinsAndCredits: String { t("Coins and credits", "投币与币数") }
    var set: String { t("Set", "设置") }
    var playMode: String { t("Play", "游戏方式") }
    var switchMode: String { t("Switch", "切换") }
    var freePlay: String { t("Free play", "免费") }
    var creditsMode: String { t("Credits", "投币") }
    var creditsPerPlay: String { t("Credits per play", "每局币数") }
    var coinsPerCredit: String { t("Coins per credit", "每币投币数") }
    var creditsNow: String { t("Credits now", "现有币数") }

    // Screen care, hours, sound limits
    var screenCare: String { t("Screen and hours", "屏幕与营业时间") }
    var dimAfter: String { t("Dim after", "变暗") }
    var offAfter: String { t("Screen off after", "关屏") }
    var pixelShift: String { t("Pixel shift", "防烧屏位移") }
    var openingHours: String { t("Opening hours", "营业时间") }
    var alwaysOpen: String { t("Always open", "全天") }
    var closedCard: String { t("Closed card on touch", "休息时触摸显示提示") }
    func minutesOrNever(_ n: Int) -> String { n == 0 ? t("Never", "从不") : t("\(n) min", "\(n) 分钟") }
    var soundLimits: String { t("Sound limits", "音量限制") }
    var volumeMax: String { t("Volume cap", "最大音量") }
    var attractVolume: String { t("Attract volume", "演示音量") }

    // Bookkeeping
    var bookkeeping: String { t("Bookkeeping", "账目") }
    var books: String { t("Counters", "计数") }
    var open: String { t("Open", "查看") }
    var exportUSB: String { t("To USB", "导出U盘") }
    var reset: String { t("Reset", "清零") }
    var never: String { t("never", "从未") }
    var resetBooksQuestion: String { t("Reset the counters?", "计数清零？") }
    var resetBooksMessage: String {
        t("Plays, times, coins and the rest start again from zero. Credits left stay.", "局数、时间、投币等从零开始；剩余的币保留。")
    }
    var exporting: String { t("Writing to the USB stick…", "正在写入U盘…") }
    func exported(_ path: String) -> String { t("Written to \(path)", "已写入 \(path)") }
    func exportFailed(_ why: String) -> String { t("Not exported: \(why)", "未导出：\(why)") }
    func duration(_ seconds: Int) -> String {
        t("\(seconds / 3600) h \(seconds % 3600 / 60) min", "\(seconds / 3600) 小时 \(seconds % 3600 / 60) 分")
    }
    func playsSummary(plays: Int, seconds: Int, average: Int) -> String {
        t("\(plays) plays · \(duration(seconds)) · \(average / 60):\(pad(average % 60)) a game",
          "\(plays) 局 · \(duration(seconds)) · 每局 \(average / 60):\(pad(average % 60))")
    }
    private func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    /// Words for `Bookkeeping.Row.item`.
    func counterName(_ item: String) -> String {
        switch item {
        case "coins": return t("Coins", "投币")
        case "credits_bought": return t("Credits bought", "买入币")
        case "credits_used": return t("Credits used", "用掉币")
        case "credits_left": return t("Credits left", "剩余币")
        case "uptime_seconds": return t("Uptime", "运行时间")
        case "starts": return t("Starts", "启动次数")
        case "crashes": return t("Crashes", "崩溃次数")
        case "watchdog_restarts": return t("Watchdog restarts", "看门狗重启")
        case "last_reset": return t("Last reset", "上次清零")
        default: return item
        }
    }
}
