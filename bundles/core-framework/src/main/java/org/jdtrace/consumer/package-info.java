/**
 * The consumer API: what libdtrace offers to dtrace(1M), the launcher and the shell.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package org.jdtrace.consumer;
