#include "wire.h"

#include <errno.h>
#include <sys/socket.h>

bool wire_send(int socket, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    while (size > 0) {
        ssize_t sent = send(socket, bytes, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return false;
        bytes += sent;
        size -= (size_t)sent;
    }
    return true;
}

bool wire_receive(int socket, void *data, size_t size)
{
    unsigned char *bytes = data;
    while (size > 0) {
        ssize_t got = recv(socket, bytes, size, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        bytes += got;
        size -= (size_t)got;
    }
    return true;
}
