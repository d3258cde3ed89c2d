package org.jdtrace.launcher.log;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of the launcher's class path (found through META-INF/services), so that the
 * bundles' warnings read like dtrace(1M)'s (DTraceLogger). SLF4J is exported to the bundles by
 * the framework's system packages, so every bundle logs through this one provider.
 */
public final class DTraceLoggingProvider implements SLF4JServiceProvider {

    private final boolean debug = System.getenv("JDTRACE_DEBUG") != null;
    private final Map<String, Logger> loggers = new ConcurrentHashMap<>();
    private final ILoggerFactory factory = name -> loggers.computeIfAbsent(name, n -> new DTraceLogger(n, debug));
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new BasicMDCAdapter();

    @Override public ILoggerFactory getLoggerFactory() { return factory; }
    @Override public IMarkerFactory getMarkerFactory() { return markers; }
    @Override public MDCAdapter getMDCAdapter() { return mdc; }
    @Override public String getRequestedApiVersion() { return "2.0.99"; }
    @Override public void initialize() { }
}
