import BeatZombies
import Game2048
import GuessPicture
import MemoryMatch
import UI

extension GameCatalog {
    /// The four games, in menu order. A new game is one more line here.
    public static var standard: GameCatalog { GameCatalog([
        .beatZombies,
        .guessPicture,
        .game2048,
        .memoryMatch,
    ]) }
}
