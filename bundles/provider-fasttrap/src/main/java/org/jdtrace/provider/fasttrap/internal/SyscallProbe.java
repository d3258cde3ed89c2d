package org.jdtrace.provider.fasttrap.internal;

/** A syscall probe's provider argument: the call's number and which end of it. */
record SyscallProbe(int number, boolean entry) {}
