package org.jdtrace.provider.fasttrap.internal.sys;

/** A failed system call: the call's name and the errno it left. */
public final class SysException extends RuntimeException {

    public static final int EPERM = 1, ESRCH = 3, EINTR = 4, EIO = 5, ECHILD = 10, EAGAIN = 11,
            EFAULT = 14, EBUSY = 16, EINVAL = 22;

    private final int errno;

    public SysException(String call, int errno) {
        super(call + ": " + describe(errno), null, false, false);
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }

    private static String describe(int errno) {
        return switch (errno) {
            case EPERM -> "Operation not permitted";
            case ESRCH -> "No such process";
            case EINTR -> "Interrupted system call";
            case EIO -> "Input/output error";
            case ECHILD -> "No child processes";
            case EAGAIN -> "Resource temporarily unavailable";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EINVAL -> "Invalid argument";
            default -> "errno " + errno;
        };
    }
}
