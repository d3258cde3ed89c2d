package org.jdtrace.itest.app;

import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/** Starts the worker thread at bundle start, stops it at bundle stop. */
public final class Activator implements BundleActivator {

    private Worker worker;

    @Override
    public void start(BundleContext context) {
        worker = new Worker(Long.getLong("org.jdtrace.itest.app.period", 5));
        worker.start();
    }

    @Override
    public void stop(BundleContext context) throws InterruptedException {
        worker.halt();
    }
}
