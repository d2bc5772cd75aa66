import Arcade
import Display

print(copyOutBenchReport())
