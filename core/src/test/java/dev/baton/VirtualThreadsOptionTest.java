package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.BadInputTest.Job;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * {@link Worker.Builder#virtualThreads()} on the JVM the tests run on: refused with a typed error below JDK 21, accepted
 * from 21 on; either way before any SQL (the data source has no database behind it and counts connection requests).
 * Each JVM runs one half and skips the other with the reason. That handlers then run on virtual threads, against a
 * database, is {@code AbstractVirtualThreadsCompatibilityTest}'s.
 */
class VirtualThreadsOptionTest {
    private static final int FEATURE = Runtime.version().feature();
    private static final CountingDataSource DATA_SOURCE = new CountingDataSource();
    private static final Baton BATON = Baton.builder(DATA_SOURCE.dataSource())
            .dialect(AssignmentsRefusalTest.stubDialect())
            .build();

    private static Worker.Builder<Job> worker() {
        ClaimQueue<Job> queue = BATON.<Job>queue("vt_jobs")
                .table("vt_jobs")
                .claim("status", BadInputTest.MACHINE, Job.PENDING, Job.PROCESSING)
                .deadState(Job.DEAD)
                .lease(Duration.ofMinutes(1))
                .build();
        return BATON.worker(queue).handle(row -> Outcome.complete(Job.DONE));
    }

    @Test
    void belowJdk21TheOptionIsRefusedWithAConfigurationException() {
        assumeTrue(FEATURE < 21, "virtual threads exist on this JVM (" + Runtime.version() + "): nothing to refuse");
        int before = DATA_SOURCE.connections();
        Worker.Builder<Job> builder = worker();
        ConfigurationException e = assertThrowsExactly(ConfigurationException.class, builder::virtualThreads);
        assertTrue(e.getMessage().contains("needs JDK 21 or later"), e.getMessage());
        assertTrue(e.getMessage().contains("queue 'vt_jobs'"), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(Runtime.version())), e.getMessage());
        assertEquals(before, DATA_SOURCE.connections(), "no connection was requested: nothing reached SQL");
    }

    @Test
    void fromJdk21TheOptionIsAcceptedAndExcludesAnExecutor() {
        assumeTrue(FEATURE >= 21, "virtual threads need JDK 21 or later; this JVM is " + Runtime.version());
        int before = DATA_SOURCE.connections();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Worker.Builder<Job> builder = worker().virtualThreads().executor(pool);
            ConfigurationException e = assertThrowsExactly(ConfigurationException.class, builder::start);
            assertTrue(
                    e.getMessage().contains("virtualThreads() and executor(...) exclude each other"), e.getMessage());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(before, DATA_SOURCE.connections(), "no connection was requested: nothing reached SQL");
    }
}
