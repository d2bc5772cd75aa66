#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
// The other kernel interfaces Display drives: the VT (graphics mode, switching), the
// uevent netlink socket (DRM hotplug), epoll (one fd for the run loop). Glibc's Swift
// module does not carry them.
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <linux/netlink.h>

// ioctl is variadic, which Swift cannot call: one typed wrapper per argument kind.
static inline int boardwalk_ioctl_value(int fd, unsigned long request, unsigned long value) {
    return ioctl(fd, request, value);
}
static inline int boardwalk_ioctl_pointer(int fd, unsigned long request, void *pointer) {
    return ioctl(fd, request, pointer);
}
