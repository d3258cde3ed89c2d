/**
 * Target processes for dtrace(1M)'s -c and -p (libdtrace's dtrace_proc_create/dtrace_proc_grab),
 * offered by the pid provider's bundle so that the probes it creates for pid&lt;PID&gt; and the
 * process the command line started share one ptrace attachment.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.1.0")
package org.jdtrace.proc;
