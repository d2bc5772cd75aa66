import Arcade
