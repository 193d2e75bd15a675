package dev.baton.bench.wake;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Outcome;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Options;
import dev.baton.bench.Point;
import dev.baton.bench.Probe;
import dev.baton.bench.Target;
import dev.baton.bench.Workload;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Enqueue-to-handler latency, today's polling against wake-ups. An enqueue is a transition
 * {@code NEW → PENDING} through Baton that stamps the wall clock; the handler (one Worker, default poll intervals of
 * 500 ms after a short batch doubling to 5 s when idle, batch 10) records its own wall clock minus the stamp.
 *
 * <ul>
 *   <li>{@code idle}: {@value #IDLE_RATE} enqueues per second for {@value #IDLE_SECONDS} s, a no-op handler;
 *   <li>{@code half load}: {@value #HALF_RATE} enqueues per second for {@value #HALF_SECONDS} s, each handler busy
 *       {@value #HALF_HANDLER_MILLIS} ms (a capacity of about 400 rows/s for the one worker: half of it);
 *   <li>{@code 1 process}: producer and worker in this JVM; {@code 2 processes}: the worker in a JVM of its own
 *       ({@link WakeConsumerMain}), PostgreSQL only (MariaDB has no notifications between sessions).
 * </ul>
 *
 * <p>{@code wakeups}: producer and worker on one {@code Baton} (so commits wake the worker in this JVM; on PostgreSQL
 * also {@code pg_notify}, and the worker's instance listens). {@code polling}: {@code crossProcessWakeups(false)} on
 * both sides, and in one process the producer on a pool of its own, so no commit of the producer reaches the worker:
 * what every release before wake-ups did.
 */
public final class WakeupLatencyWorkload implements Workload {
    static final int IDLE_RATE = 5;
    static final int IDLE_SECONDS = 4;
    static final int HALF_RATE = 200;
    static final int HALF_SECONDS = 3;
    static final int HALF_HANDLER_MILLIS = 2;

    private final boolean twoProcesses;

    /** The one-process workload ({@code wakeup-latency}) or the two-process one ({@code wakeup-latency-2p}). */
    public WakeupLatencyWorkload(boolean twoProcesses) {
        this.twoProcesses = twoProcesses;
    }

    @Override
    public String name() {
        return twoProcesses ? "wakeup-latency-2p" : "wakeup-latency";
    }

    @Override
    public String description(Options o) {
        return "Enqueue-to-handler latency (ms, p50; p99 in the latency column), "
                + (twoProcesses ? "the worker in a second JVM" : "producer and worker in one JVM")
                + ": `polling` (no wake-ups reach the worker: default poll 500 ms doubling to 5 s when idle) against"
                + " `wakeups`. `idle`: " + IDLE_RATE + " enqueues/s for " + IDLE_SECONDS + " s, no-op handler; `half"
                + " load`: " + HALF_RATE + " enqueues/s for " + HALF_SECONDS + " s, handler busy "
                + HALF_HANDLER_MILLIS + " ms (about half the one worker's capacity). One enqueue = one transition"
                + " NEW → PENDING through Baton stamping the wall clock; latency = the handler's wall clock minus the"
                + " stamp. Verified: every row handled once.";
    }

    @Override
    public boolean supports(Target target) {
        return !twoProcesses || target.kind() == Target.Kind.POSTGRES;
    }

    @Override
    public List<String> variants(Target target) {
        return List.of("polling", "wakeups");
    }

    @Override
    public List<Point> points(Options options) {
        return List.of(new Point("load", 0, "idle"), new Point("load", 1, "half load"));
    }

    @Override
    public List<Ratio> ratios() {
        return List.of(new Ratio("wakeups", "polling", 1.0));
    }

    @Override
    public String unit() {
        return "ms p50";
    }

    @Override
    public boolean higherIsBetter() {
        return false;
    }

    @Override
    public void prepare(Target target, Options options) {}

    @Override
    public Measurement run(Target target, String variant, Point point, Options o, Probe probe) throws Exception {
        boolean wakeups = variant.equals("wakeups");
        boolean half = point.x() == 1;
        int rate = half ? HALF_RATE : IDLE_RATE;
        int rows = rate * (half ? HALF_SECONDS : IDLE_SECONDS);
        long handlerMillis = half ? HALF_HANDLER_MILLIS : 0;
        WakeTable.reset(target.pool(), target.kind(), rows);
        Latency latency = new Latency();
        AtomicInteger handled = new AtomicInteger();
        try (HikariDataSource producerPool = wakeups ? null : pool(target)) {
            Baton producer = Baton.builder(wakeups ? target.pool() : producerPool)
                    .crossProcessWakeups(wakeups)
                    .build();
            WakeTable.queue(producer); // the producer knows the queue its transitions wake
            StateTable<WakeTable.State> table = producer.table(WakeTable.TABLE).state("status", WakeTable.MACHINE);
            if (twoProcesses) {
                Process child = consumer(target, variant, rows, handlerMillis);
                try {
                    BufferedReader out =
                            new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                    String line;
                    while ((line = out.readLine()) != null && !line.equals("READY")) {
                        // its start-up
                    }
                    Thread reader = new Thread(() -> {
                        try {
                            String l;
                            while ((l = out.readLine()) != null) {
                                if (l.startsWith("L ")) {
                                    synchronized (latency) {
                                        latency.record(Long.parseLong(l.substring(2)) * 1000);
                                    }
                                    handled.incrementAndGet();
                                }
                            }
                        } catch (java.io.IOException e) {
                            // the process ended
                        }
                    });
                    reader.start();
                    probe.begin();
                    produce(table, rows, rate);
                    awaitHandled(handled, rows);
                    probe.end();
                    child.waitFor(10, TimeUnit.SECONDS);
                    reader.join(2000);
                } finally {
                    child.destroy();
                }
            } else {
                Baton consumer = wakeups
                        ? producer
                        : Baton.builder(target.pool())
                                .crossProcessWakeups(false)
                                .build();
                ClaimQueue<WakeTable.State> queue = WakeTable.queue(consumer);
                try (Worker w = consumer.worker(queue)
                        .batchSize(10)
                        .handle(row -> {
                            long enq = ((Number) row.get("enq_us")).longValue();
                            long us = WakeTable.nowMicros() - enq;
                            synchronized (latency) {
                                latency.record(us * 1000);
                            }
                            handled.incrementAndGet();
                            if (handlerMillis > 0) {
                                Thread.sleep(handlerMillis);
                            }
                            return Outcome.complete(WakeTable.State.DONE);
                        })
                        .start()) {
                    Thread.sleep(1500); // its first claim (and on PostgreSQL the listener's probe); then idle
                    probe.begin();
                    produce(table, rows, rate);
                    awaitHandled(handled, rows);
                    probe.end();
                    if (!w.isRunning()) {
                        throw new IllegalStateException("the worker stopped");
                    }
                }
            }
        }
        int n = handled.get();
        long failures = Math.abs(rows - n);
        Latency.Summary s = latency.summary();
        String check = failures == 0 ? "ok: " + n + " rows handled once" : "FAILED: " + n + " of " + rows + " handled";
        return new Measurement(
                n,
                half ? HALF_SECONDS : IDLE_SECONDS,
                s.p50Micros() / 1000.0,
                s,
                failures,
                check,
                Double.NaN,
                Double.NaN);
    }

    /** Enqueues {@code rows} rows at {@code rate} per second on one thread, each stamped when it is sent. */
    private static void produce(StateTable<WakeTable.State> table, int rows, int rate) throws InterruptedException {
        long start = System.nanoTime();
        long gap = 1_000_000_000L / rate;
        for (long id = 1; id <= rows; id++) {
            long due = start + (id - 1) * gap;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            table.transition(id, WakeTable.State.NEW, WakeTable.State.PENDING)
                    .set("enq_us", WakeTable.nowMicros())
                    .apply();
        }
    }

    private static void awaitHandled(AtomicInteger handled, int rows) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (handled.get() < rows && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private static HikariDataSource pool(Target target) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(target.url());
        c.setUsername(target.user());
        c.setPassword(target.password());
        c.setMaximumPoolSize(2);
        c.setPoolName("bench-wake-producer");
        return new HikariDataSource(c);
    }

    private Process consumer(Target target, String variant, int rows, long handlerMillis) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                WakeConsumerMain.class.getName(),
                target.url(),
                target.user(),
                target.password() == null || target.password().isEmpty() ? "-" : target.password(),
                variant,
                String.valueOf(rows),
                String.valueOf(handlerMillis)));
        return new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    @Override
    public String finish(Target target) throws Exception {
        WakeTable.drop(target.pool());
        return "";
    }
}
