// The kernel's uevent socket (Display's DRM hotplug).
#include <sys/socket.h>
#include <linux/netlink.h>
