/*
 * The integration tests' Java static probes: provider `itest` with one probe,
 * itest:org.jdtrace.itest.provider::tick (long seq, char *word), fired every millisecond by a
 * thread of this bundle while its component is active, with arg0 = the firing's sequence number
 * and arg1 = "tock". Declared with the org.jdtrace.sdt API as any bundle would declare its probes:
 * starting, stopping, uninstalling and reinstalling this bundle exercises their lifecycle.
 */
package org.jdtrace.itest.provider;

import java.util.concurrent.atomic.AtomicLong;
import org.jdtrace.sdt.ArgType;
import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.sdt.StaticProvider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

@Component(immediate = true, service = {})
public final class StaticProbeFirer {

    static final StaticProvider ITEST = StaticProvider.define(StaticProbeFirer.class, "itest");
    static final StaticProbe TICK = ITEST.probe("tick", ArgType.LONG, ArgType.STRING);

    private final AtomicLong sequence = new AtomicLong();
    private volatile boolean running = true;
    private Thread firer;

    @Activate
    void activate() {
        firer = Thread.ofPlatform().daemon().name("itest-static-probe-firer").start(this::loop);
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        running = false;
        firer.join(5000);
    }

    private void loop() {
        while (running) {
            TICK.fire(sequence.incrementAndGet(), "tock");
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
