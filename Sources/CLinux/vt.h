// The virtual terminal's ioctls: graphics or text mode and keyboard mode (kd.h), switching
// under the program's control (vt.h). Display's VirtualTerminal.
#include <linux/kd.h>
#include <linux/vt.h>
