// Linux system headers the Glibc module leaves out (signalfd, timerfd). No library to link.
#include <sys/signalfd.h>
#include <sys/timerfd.h>
