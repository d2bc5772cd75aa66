// glibc's heap statistics and trimming (Platform's MallocStats).
#include <malloc.h>
