// Kernel timers read from a descriptor (Platform's TimerFD).
#include <sys/timerfd.h>
