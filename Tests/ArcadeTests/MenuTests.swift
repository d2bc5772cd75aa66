import Graphics
import TestSupport
import UI
import XCTest
@testable import Arcade

/// The menu's tiles say what each game's best is: a high score, 2048's best on the board in
/// play, Memory's fewest moves on the grid in play.
final class MenuTests: XCTestCase {
    private func storageWithResults() -> MemoryStorage {
        let storage = MemoryStorage()
        storage.setInteger("zombies.best", 42)
        storage.setInteger("guess.best.en.round", 1600)
        storage.setInteger("guess.best.zh.round", 2400)
        storage.setInteger("2048.size", 5)
        storage.setInteger("2048.best.4x4", 900)
        storage.setInteger("2048.best.5x5", 3012)
        storage.setString("memory.grid", "4x5")
        storage.setInteger("memory.best.4x4", 11)
        storage.setInteger("memory.best.4x5", 14)
        return storage
    }

    func testBestResultsAreTheVariantInPlayAndSaySoInWords() throws {
        let storage = storageWithResults()
        let games = GameCatalog.standard.games
        let best = Dictionary(uniqueKeysWithValues: games.map { ($0.id, $0.bestResult(storage, language: .english)) })
        XCTAssertEqual(best["beat_zombies"], 42)
        XCTAssertEqual(best["guess_picture"], 1600)
        XCTAssertEqual(best["2048"], 3012, "the 5x5 board is in play")
        XCTAssertEqual(best["memory"], 14, "the 4x5 grid is in play")
        XCTAssertEqual(GameCatalog.standard.game("guess_picture")?.bestResult(storage, language: .chinese), 2400)

        let label = { (id: String, value: Int, language: Language) in
            GameCatalog.standard.game(id)!.best.label(value, language, storage)
        }
        XCTAssertEqual(label("beat_zombies", 42, .english), "High score 42")
        XCTAssertEqual(label("memory", 14, .english), "Fewest moves 14")
        XCTAssertEqual(label("memory", 14, .chinese), "最少 14 步")
        XCTAssertEqual(label("2048", 3012, .english), "5×5 best 3012")
        XCTAssertTrue(GameCatalog.standard.game("memory")!.best.lowerIsBetter)
        XCTAssertFalse(GameCatalog.standard.game("2048")!.best.lowerIsBetter)
        for game in games where game.best.lowerIsBetter {
            XCTAssertFalse(label(game.id, 1, .english).contains("Best"), "a lower-is-better result is never called Best")
        }
    }

    /// Beat Zombies' best is the operator's difficulty's; arcade's is the key kept before.
    func testBeatZombiesBestIsTheDifficultyInPlay() throws {
        let storage = storageWithResults()
        storage.setInteger("zombies.best.classic", 99)
        let game = try XCTUnwrap(GameCatalog.standard.game("beat_zombies"))
        XCTAssertEqual(game.bestResult(storage, language: .english), 42, "arcade by default")
        XCTAssertEqual(game.bestResult(storage, language: .english, settings: ["zombies.difficulty": "classic"]), 99)
        XCTAssertNil(game.bestResult(storage, language: .english, settings: ["zombies.difficulty": "gentle"]))
        XCTAssertEqual(game.best.variants.map { $0.name(.chinese) }, ["轻松", "经典", "街机"])
    }

    /// With the data directory the Beat Zombies tile is its drawn art, not the emoji.
    func testTheBeatZombiesTileIsTheArtSetsPicture() {
        let menu = MenuScene(games: GameCatalog.standard.games, language: .english, dataDirectory: sourceRoot + "/data")
        let h = SceneHarness(width: 800, height: 480, scene: menu)
        menu.showBestResults(storageWithResults())
        h.run(seconds: 0.1)
        h.check("menu-bests-drawn-tile-800x480-en")
    }

    func testTilesShowTheBests() {
        for (width, height, language) in [(800, 480, Language.english), (480, 800, Language.chinese)] {
            let menu = MenuScene(games: GameCatalog.standard.games, language: language)
            let h = SceneHarness(width: width, height: height, scene: menu)
            menu.showBestResults(storageWithResults())
            h.run(seconds: 0.1)
            h.check("menu-bests-\(width)x\(height)-\(language.rawValue)")
        }
    }

    func testIdsAreTheDescriptorsAndUnique() {
        let ids = GameCatalog.standard.ids
        XCTAssertEqual(ids, ["beat_zombies", "guess_picture", "2048", "memory"])
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertEqual(Settings().kiosk.enabledGames, ids, "every game is on by default")
    }
}
