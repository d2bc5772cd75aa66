#include <sys/ioctl.h>

// ioctl is variadic, which Swift cannot call: one typed wrapper per argument kind.
static inline int boardwalk_ioctl_value(int fd, unsigned long request, unsigned long value) {
    return ioctl(fd, request, value);
}
static inline int boardwalk_ioctl_pointer(int fd, unsigned long request, void *pointer) {
    return ioctl(fd, request, pointer);
}
