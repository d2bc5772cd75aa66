#include <libevdev/libevdev.h>
#include <linux/input.h>
