package dev.baton.testkit;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.Parameter;
import org.opentest4j.TestAbortedException;

/**
 * The lifecycle every compatibility suite shares: one instance per server, the server resolved before the first
 * test, {@link #setUp()} once with it, {@link #tearDown()} once after the last test. Run by
 * {@link BatonDatabaseExtension}.
 *
 * <p>A dialect module runs the suites as the {@code @Nested} classes of {@link
 * dev.baton.testkit.compat.AbstractCompatibilityTest}, which declares each once, once per server ({@link
 * OnEachServer}) of the dialect's test:
 *
 * <pre>
 * &#64;CompatibilityServers({POSTGRES_LOCAL, POSTGRES_EMBEDDED, POSTGRES_PGBOUNCER})
 * class PostgresCompatibilityTest extends AbstractCompatibilityTest {}</pre>
 *
 * <p>A suite marked {@link RunsOn} runs on the servers it names only.
 *
 * <p>A server that is missing skips every test of the suite, each with the reason (or fails each, where it must be
 * there: see {@link dev.baton.testservers.TestDatabases}); nothing is reported as "0 tests run" (a
 * {@code @TestFactory} returns {@link #skippedFactory(String)} for that). A suite used on its own overrides
 * {@link #server()} instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(BatonDatabaseExtension.class)
public abstract class DatabaseSuite {
    /**
     * The server of this run when the suite is {@link OnEachServer} (JUnit injects the argument); null otherwise.
     * A suite reads its server through {@link #database()}.
     */
    @Parameter
    TestServer onEachServer;

    private TestDatabase database;
    private Throwable unavailable;
    private boolean setUp;

    /** For subclasses. */
    protected DatabaseSuite() {}

    /**
     * The server this suite runs on, when it is not given by an enclosing parameterized class: a {@link TestServer},
     * or any supplier that returns a database or ends the test as {@link TestServer#get()} does.
     *
     * @return the server, or {@code null} (the default) to take the enclosing instance's {@link TestServer} field
     */
    protected Supplier<TestDatabase> server() {
        return null;
    }

    /**
     * The database under test; ready from {@link #setUp()} on.
     *
     * @return the database
     * @throws IllegalStateException before the server was resolved
     */
    protected final TestDatabase database() {
        if (database == null) {
            throw new IllegalStateException("the database is resolved before the first test of " + getClass());
        }
        return database;
    }

    /**
     * The fixed seeds a model suite runs on this server: every sequence of {@code count} from the default base on the
     * first server of a kind (the local ones and the topologies), and the next {@code count / 2} on the second (the
     * embedded ones), so that the second server runs sequences the first did not, in half its time.
     *
     * @param count the model suite's number of fixed sequences, at least 2
     * @return a runner of this server's fixed seeds; the caller adds random sequences and steps
     */
    protected final SeededRunner fixedSeeds(int count) {
        boolean second = database().name().contains("embedded");
        return SeededRunner.sequences(second ? count / 2 : count)
                .seed(SeededRunner.DEFAULT_BASE_SEED + (second ? count : 0));
    }

    /**
     * Skips the calling test when the database takes writes on several nodes at once ({@link
     * TestServer#MARIADB_GALERA_SPREAD}): for a test whose set-up needs one node's view, such as a row lock held on one
     * connection that another must see (a Galera node's locks are its own).
     *
     * @param why what the test needs of one node; part of the skip reason
     */
    protected final void assumeOneWriterNode(String why) {
        if (database().name().equals(TestServer.MARIADB_GALERA_SPREAD.toString())) {
            // worded as a RunsOn restriction, which the Docker CI's no-skip check accepts
            throw new TestAbortedException("this test runs on [servers with one writer node] only, not on "
                    + database().name() + " (writes on all three nodes): " + why);
        }
    }

    /**
     * Runs once, before the first test, with {@link #database()} ready: creates the suite's tables. When it throws,
     * every test of the suite fails with that exception. Does nothing by default.
     *
     * @throws Exception anything
     */
    protected void setUp() throws Exception {}

    /**
     * Runs once after the last test, when {@link #setUp()} ran: drops the suite's tables. Does nothing by default.
     *
     * @throws Exception anything
     */
    protected void tearDown() throws Exception {}

    /** Resolves the server and sets the suite up on the first call; ends the test the same way on every call. */
    final void open(Supplier<TestDatabase> server) throws Exception {
        if (!setUp && unavailable == null) {
            try {
                database = server.get();
                setUp = true;
                setUp();
            } catch (Exception | Error e) { // a skip, a failure, or a broken set-up: each later test ends alike
                unavailable = e;
            }
        }
        if (unavailable instanceof Error error) {
            throw error;
        }
        if (unavailable != null) {
            throw (Exception) unavailable;
        }
    }

    /**
     * What a {@code @TestFactory} of the suite returns first: when the server is missing and that is expected (a
     * skip), one dynamic test named {@code name} that ends skipped with the reason, so that reports show the skip
     * rather than "Tests run: 0" (a factory generates its cases against the database, so it has none without one);
     * empty when the server is there. {@link BatonDatabaseExtension} lets a factory run in that case.
     *
     * <pre>
     * &#64;TestFactory
     * List&lt;DynamicTest&gt; cases() {
     *     Optional&lt;DynamicTest&gt; skipped = skippedFactory("cases");
     *     if (skipped.isPresent()) {
     *         return List.of(skipped.get());
     *     }
     *     ... // database() is ready here
     * }</pre>
     *
     * @param name the display name of the skipped test
     * @return the skipped test, or empty when the suite has its database
     */
    protected final Optional<DynamicTest> skippedFactory(String name) {
        if (!(unavailable instanceof TestAbortedException skip)) {
            return Optional.empty();
        }
        return Optional.of(DynamicTest.dynamicTest(name, () -> {
            throw skip;
        }));
    }

    @AfterAll
    final void closeSuite() throws Exception {
        if (setUp) {
            tearDown();
        }
    }
}
