// One pollable descriptor over several (Display's DRM presenter: the card and the uevent socket).
#include <sys/epoll.h>
