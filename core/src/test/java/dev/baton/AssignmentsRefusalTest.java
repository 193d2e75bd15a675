package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;

import dev.baton.spi.BatchUpdate;
import dev.baton.spi.BatchUpdateSpec;
import dev.baton.spi.ColumnType;
import dev.baton.spi.DatabaseInfo;
import dev.baton.spi.Diagnostics;
import dev.baton.spi.Dialect;
import dev.baton.spi.DialectTraits;
import dev.baton.spi.OwnTableDialect;
import dev.baton.spi.SqlError;
import dev.baton.spi.SqlVocabulary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A transition, a bulk transition and a queue outcome set extra columns through one SET-list: each refuses the same
 * bad assignment (the state column, the id column, a column set twice, an invalid identifier) with the same typed
 * exception, before any SQL. The data source counts connection requests and has no database behind it, so reaching
 * SQL would both count and fail differently ({@link DataAccessException}).
 */
class AssignmentsRefusalTest {
    enum Job {
        PENDING,
        PROCESSING,
        DONE,
        DEAD
    }

    private static final StateMachine<Job> MACHINE = StateMachine.of(Job.class)
            .name("job")
            .initial(Job.PENDING)
            .allow(Job.PENDING, Job.PROCESSING)
            .allow(Job.PROCESSING, Job.PENDING, Job.DONE, Job.DEAD)
            .terminal(Job.DONE, Job.DEAD)
            .build();

    private final CountingDataSource dataSource = new CountingDataSource();
    private final Baton baton =
            Baton.builder(dataSource.dataSource()).dialect(stubDialect()).build();
    private final StateTable<Job> jobs = baton.table("jobs").state("status", MACHINE);
    private final ClaimQueue<Job> queue = baton.<Job>queue("jobs")
            .table("jobs")
            .claim("status", MACHINE, Job.PENDING, Job.PROCESSING)
            .deadState(Job.DEAD)
            .lease(Duration.ofMinutes(1))
            .build();
    private final ClaimedRow<Job> row = new ClaimedRow<>("jobs", 1L, 42L, 1, Map.of());

    /** One bad assignment, made by each of the three writers. */
    private void refusedAlike(Class<? extends Throwable> expected, Function<Setter, Setter> bad) {
        Executable transition = () -> bad.apply(Setter.of(jobs.transition(1L, Job.PENDING, Job.PROCESSING)))
                .run();
        Executable bulk = () ->
                bad.apply(Setter.of(jobs.bulk(Job.PENDING, Job.PROCESSING))).run();
        Executable outcome = () ->
                bad.apply(Setter.of(queue, row, Outcome.complete(Job.DONE))).run();
        assertThrowsExactly(expected, transition, "transition");
        assertThrowsExactly(expected, bulk, "bulk transition");
        assertThrowsExactly(expected, outcome, "outcome");
        assertEquals(0, dataSource.connections(), "no connection was requested: nothing reached SQL");
    }

    @Test
    void theStateColumn() {
        refusedAlike(ConfigurationException.class, s -> s.set("status", "x"));
        refusedAlike(ConfigurationException.class, s -> s.set("STATUS", "x"));
        refusedAlike(ConfigurationException.class, s -> s.setNow("status"));
    }

    @Test
    void theIdColumn() {
        refusedAlike(ConfigurationException.class, s -> s.set("id", 7L));
        refusedAlike(ConfigurationException.class, s -> s.setNow("Id"));
    }

    @Test
    void aColumnSetTwice() {
        refusedAlike(ConfigurationException.class, s -> s.set("note", "a").set("note", "b"));
        refusedAlike(ConfigurationException.class, s -> s.set("note", "a").setNow("NOTE"));
    }

    @Test
    void anInvalidIdentifier() {
        refusedAlike(InvalidIdentifierException.class, s -> s.set("note; DROP TABLE jobs", "a"));
        refusedAlike(InvalidIdentifierException.class, s -> s.setNow("1st"));
        refusedAlike(InvalidIdentifierException.class, s -> s.set("", "a"));
    }

    @Test
    void aGoodAssignmentReachesTheDatabase() {
        // the control: the same writers with an acceptable column do ask for a connection
        assertThrowsExactly(DataAccessException.class, () -> jobs.transition(1L, Job.PENDING, Job.PROCESSING)
                .set("note", "a")
                .apply());
        assertEquals(1, dataSource.connections());
    }

    /** The three writers behind one interface: {@code set}, {@code setNow}, then run. */
    private interface Setter {
        Setter set(String column, Object value);

        Setter setNow(String column);

        void run();

        static Setter of(Transition<Job> t) {
            return new Setter() {
                public Setter set(String column, Object value) {
                    t.set(column, value);
                    return this;
                }

                public Setter setNow(String column) {
                    t.setNow(column);
                    return this;
                }

                public void run() {
                    t.apply();
                }
            };
        }

        static Setter of(BulkTransition<Job> b) {
            return new Setter() {
                public Setter set(String column, Object value) {
                    b.set(column, value);
                    return this;
                }

                public Setter setNow(String column) {
                    b.setNow(column);
                    return this;
                }

                public void run() {
                    b.apply();
                }
            };
        }

        static Setter of(ClaimQueue<Job> q, ClaimedRow<Job> r, Outcome<Job> start) {
            return new Setter() {
                private Outcome<Job> outcome = start;

                public Setter set(String column, Object value) {
                    outcome = outcome.set(column, value);
                    return this;
                }

                public Setter setNow(String column) {
                    outcome = outcome.setNow(column);
                    return this;
                }

                public void run() {
                    q.apply(r, outcome);
                }
            };
        }
    }

    /** Renders plain ANSI SQL; executes nothing. */
    static Dialect stubDialect() {
        SqlVocabulary sql = new SqlVocabulary() {
            @Override
            public String quote(String identifier) {
                return "\"" + identifier + "\"";
            }

            @Override
            public String currentTimestamp() {
                return "CURRENT_TIMESTAMP";
            }

            @Override
            public String plusMillis(String timestampSql, long millis) {
                return timestampSql + " + " + millis;
            }

            @Override
            public String plusMillisParam(String timestampSql) {
                return timestampSql + " + ?";
            }

            @Override
            public String columnType(ColumnType type) {
                return type.name();
            }
        };
        return new Dialect() {
            @Override
            public String name() {
                return "stub";
            }

            @Override
            public boolean supports(DatabaseInfo info) {
                return true;
            }

            @Override
            public DialectTraits traits() {
                return DialectTraits.of(63);
            }

            @Override
            public SqlVocabulary sql() {
                return sql;
            }

            @Override
            public BatchUpdate batchUpdate(BatchUpdateSpec spec) {
                return BatchUpdate.of(List.of("stub claim"), (c, a) -> {
                    throw new AssertionError("SQL reached");
                });
            }

            @Override
            public OwnTableDialect ownTables() {
                return new OwnTableDialect() {};
            }

            @Override
            public Diagnostics diagnostics() {
                return e -> SqlError.OTHER;
            }

            @Override
            public dev.baton.spi.Notifications notifications() {
                return dev.baton.spi.Notifications.NONE;
            }

            @Override
            public String toString() {
                return "stub";
            }
        };
    }
}
