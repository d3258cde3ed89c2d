package org.jdtrace.consumer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** DTraceCommand.Interrupt's default await(), which polls requested() (the shell's Interrupt keeps it). */
class InterruptTest {

    @Test
    void aRaisedInterruptIsAnsweredAtOnce() throws InterruptedException {
        DTraceCommand.Interrupt raised = () -> true;
        assertTrue(raised.await(0));
        assertTrue(raised.await(60_000), "no wait when already raised");
    }

    @Test
    void aTimedAwaitOfAnUnraisedInterruptAnswersFalse() throws InterruptedException {
        DTraceCommand.Interrupt never = () -> false;
        assertFalse(never.await(1));
        assertFalse(never.await(120));
    }

    @Test
    void anUnlimitedAwaitReturnsOnceTheFlagIsRaised() throws InterruptedException {
        AtomicBoolean flag = new AtomicBoolean();
        DTraceCommand.Interrupt interrupt = flag::get;
        Thread raiser = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            flag.set(true);
        });
        assertTrue(interrupt.await(0));
        raiser.join();
    }

    @Test
    void aThreadInterruptEndsTheWait() {
        DTraceCommand.Interrupt never = () -> false;
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> never.await(0));
        assertFalse(Thread.interrupted());
    }

    @Test
    void aNegativeWaitIsRefused() {
        DTraceCommand.Interrupt never = () -> false;
        assertThrows(IllegalArgumentException.class, () -> never.await(-1));
    }
}
