/* Paddock's one error enum. Every layer returns these; foreign codes (errno,
 * libuv, SQLite, protobuf-c) are mapped to them once, at the module's edge.
 * Names and messages come from the single list below so they never drift. */
#ifndef PDK_ERROR_H
#define PDK_ERROR_H

/* X(name, value, message). Values are stable: they travel on the wire as
 * paddock.v1.ErrorCode, so a value is never reused or renumbered. */
#define PDK_ERROR_LIST(X)                                                      \
    X(PDK_OK, 0, "ok")                                                         \
    X(PDK_ERR_INVALID_ARGUMENT, 1, "invalid argument")                         \
    X(PDK_ERR_NOT_FOUND, 2, "not found")                                       \
    X(PDK_ERR_ALREADY_EXISTS, 3, "already exists")                             \
    X(PDK_ERR_CAPACITY, 4, "capacity exhausted")                               \
    X(PDK_ERR_STALE_ID, 5, "stale or unknown id")                              \
    X(PDK_ERR_PARSE, 6, "malformed input")                                     \
    X(PDK_ERR_UNKNOWN_KEY, 7, "unknown key")                                   \
    X(PDK_ERR_WRONG_TYPE, 8, "wrong type")                                     \
    X(PDK_ERR_OUT_OF_RANGE, 9, "value out of range")                           \
    X(PDK_ERR_IO, 10, "input/output error")                                    \
    X(PDK_ERR_DB, 11, "database error")                                        \
    X(PDK_ERR_DB_TOO_NEW, 12, "database is newer than this binary")            \
    X(PDK_ERR_PROTOCOL, 13, "protocol error")                                  \
    X(PDK_ERR_FRAME_TOO_LARGE, 14, "frame too large")                          \
    X(PDK_ERR_VERSION, 15, "unsupported protocol version")                     \
    X(PDK_ERR_NO_MEMORY, 16, "out of memory")                                  \
    X(PDK_ERR_BUSY, 17, "busy")                                                \
    X(PDK_ERR_CLOSED, 18, "closed")                                            \
    X(PDK_ERR_UNSUPPORTED, 19, "unsupported")                                  \
    X(PDK_ERR_TIMEOUT, 20, "timed out")                                        \
    X(PDK_ERR_NET, 21, "network error")                                        \
    X(PDK_ERR_UNAUTHENTICATED, 22, "unauthenticated")                          \
    X(PDK_ERR_PERMISSION_DENIED, 23, "permission denied")

typedef enum pdk_error {
#define PDK_ERROR_ENUM_(name, value, message) name = value,
    PDK_ERROR_LIST(PDK_ERROR_ENUM_)
#undef PDK_ERROR_ENUM_
} pdk_error;

/* How many values the list has; they run 0..PDK_ERROR_COUNT - 1, so an
 * array indexed by pdk_error holds them all. */
enum {
#define PDK_ERROR_ONE_(name, value, message) +1
    PDK_ERROR_COUNT = 0 PDK_ERROR_LIST(PDK_ERROR_ONE_)
#undef PDK_ERROR_ONE_
};

/* The enum value's name, e.g. "PDK_ERR_NOT_FOUND". Never NULL, never
 * allocates; an unknown value gives "PDK_ERR_UNKNOWN". */
const char *pdk_error_name(pdk_error err);

/* A short human message for the value. Never NULL, never allocates. */
const char *pdk_error_message(pdk_error err);

/* Internal invariants: an assert that stays on in release builds. It is an
 * expression, so it can stand anywhere an expression can. */
void pdk_assert_fail(const char *expr, const char *file, int line);
#define PDK_ASSERT(expr) ((expr) ? (void)0 : pdk_assert_fail(#expr, __FILE__, __LINE__))

#endif
