package dev.baton.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.bench.report.LineChart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The database-free parts of the harness. */
class HarnessTest {

    @Test
    void latencyPercentilesAndTrimmedMean() {
        Latency l = new Latency();
        for (int i = 1; i <= 1000; i++) {
            l.record(i * 1000L); // 1..1000 µs
        }
        Latency other = new Latency();
        other.record(1_000_000_000L); // one stall of 1 s
        l.add(other);
        Latency.Summary s = l.summary();
        assertEquals(500, s.p50Micros(), 500 * 0.04);
        assertEquals(991, s.p99Micros(), 991 * 0.04);
        assertTrue(s.meanMicros() > 1000, "the stall dominates the mean: " + s.meanMicros());
        // fastest 99 % of 1001 values: 990 values 1..990 µs
        assertEquals(495.5, s.trimmedMeanMicros(), 0.01);
    }

    @Test
    void abbaOrder() {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            order.add(ClosedLoop.abba(i, 2));
        }
        assertEquals(List.of(0, 1, 1, 0, 0, 1, 1, 0), order);
    }

    @Test
    void slicesGiveEachVariantHalfTheTime() throws Exception {
        AtomicLong a = new AtomicLong();
        AtomicLong b = new AtomicLong();
        List<ClosedLoop.Result> r = ClosedLoop.run(
                2,
                2,
                (v, w) -> () -> {
                    (v == 0 ? a : b).incrementAndGet();
                    Thread.sleep(1);
                    return true;
                },
                0.05,
                0.4,
                0.05,
                true,
                null);
        assertEquals(0.4, r.get(0).seconds(), 0.1);
        assertEquals(0.4, r.get(1).seconds(), 0.1);
        assertTrue(r.get(0).ops() > 0 && r.get(1).ops() > 0);
        assertEquals(1.0, r.get(0).ops() / (double) r.get(1).ops(), 0.35);
        assertTrue(r.get(0).cpuMicrosPerOp() >= 0);
        assertTrue(r.get(0).allocatedBytesPerOp() >= 0);
    }

    @Test
    void perOpAlternation() throws Exception {
        List<ClosedLoop.Result> r = ClosedLoop.run(1, 2, (v, w) -> () -> true, 0.01, 0.1, 0, false, null);
        assertEquals(r.get(0).ops(), r.get(1).ops(), 1);
    }

    @Test
    void optionsDefaultsAndErrors() {
        Options full = Options.parse(new String[0]);
        assertEquals(3, full.reps());
        assertEquals(List.of(1, 4, 16), full.concurrency());
        assertEquals(List.of("transition", "claim", "claim-latency", "outbox", "drain", "jmh"), full.workloads());
        assertEquals(
                5, dev.baton.bench.workload.Workloads.named(full.workloads()).size(), "jmh is not a database workload");
        Options quick = Options.parse(new String[] {"--quick", "--targets", "postgres"});
        assertEquals(50_000, quick.rows());
        assertEquals(List.of("postgres"), quick.targets());
        assertEquals(List.of("jmh"), Options.parse(new String[] {"--jmh"}).workloads());
        assertThrows(IllegalArgumentException.class, () -> Options.parse(new String[] {"--bogus"}));
        assertThrows(
                IllegalArgumentException.class,
                () -> Options.parse(new String[] {"--concurrency", "64", "--pool", "8"}));
    }

    @Test
    void chartIsAPng(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("c.png");
        new LineChart("t", "concurrency", "transitions/s")
                .add(new LineChart.Series(
                        "a",
                        0,
                        false,
                        List.of(new LineChart.P(1, 100, 90, 110), new LineChart.P(16, 1000, Double.NaN, Double.NaN))))
                .rule(0.95, "0.95")
                .write(png, 400, 300);
        byte[] head = Files.readAllBytes(png);
        assertEquals((byte) 0x89, head[0]);
        assertEquals('P', head[1]);
    }
}
