// Signals read from a descriptor (Platform's SignalFD).
#include <sys/signalfd.h>
