/**
 * Rates and intervals as DTrace writes them ({@code 97hz}, {@code 10ms}, {@code 5s}): one parser for
 * the profile provider's probe names and for the consumer's options (switchrate, aggrate...).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jdtrace.time;
