package dev.baton.bench.wake;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.StateMachine;
import dev.baton.bench.Target;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The wake-up bench's table {@value #TABLE}: rows wait in {@code NEW}; an enqueue is the transition {@code NEW →
 * PENDING} that stamps {@code enq_us} (the wall clock in microseconds, shared by the processes of this machine), and the
 * handler's latency is its own wall clock minus that stamp.
 */
final class WakeTable {
    static final String TABLE = "baton_bench_wake";

    /** The states, stored as integers. */
    enum State {
        PENDING(0),
        PROCESSING(1),
        DONE(2),
        NEW(3),
        DEAD(4);

        final int code;

        State(int code) {
            this.code = code;
        }
    }

    static final StateMachine<State> MACHINE = StateMachine.of(State.class)
            .storedAs(s -> s.code)
            .initial(State.NEW)
            .allow(State.NEW, State.PENDING)
            .allow(State.PENDING, State.PROCESSING)
            .allow(State.PROCESSING, State.PENDING, State.DONE, State.DEAD)
            .terminal(State.DONE, State.DEAD)
            .build();

    private WakeTable() {}

    /** Drops and creates the table with {@code rows} rows in NEW (ids 1..rows). */
    static void reset(DataSource ds, Target.Kind kind, int rows) throws SQLException {
        String ts = kind == Target.Kind.POSTGRES ? "TIMESTAMPTZ NULL" : "DATETIME(6) NULL";
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute("CREATE TABLE " + TABLE + " (id BIGINT NOT NULL PRIMARY KEY, status INT NOT NULL, enq_us BIGINT"
                    + " NULL, lease_until " + ts + ", claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL,"
                    + " next_attempt_at " + ts + ", last_error VARCHAR(1000) NULL)");
            st.execute("CREATE INDEX ix_" + TABLE + "_claim ON " + TABLE + " (status, id)");
            c.setAutoCommit(false);
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO " + TABLE + " (id, status, attempts) VALUES (?, 3, 0)")) {
                for (int i = 1; i <= rows; i++) {
                    ps.setLong(1, i);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            c.setAutoCommit(true);
        }
    }

    static void drop(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }

    /** The queue: PENDING → PROCESSING, returning {@code enq_us}. */
    static ClaimQueue<State> queue(Baton baton) {
        return baton.<State>queue("bench-wake")
                .table(TABLE)
                .claim("status", MACHINE, State.PENDING, State.PROCESSING)
                .select("enq_us")
                .deadState(State.DEAD)
                .lease(Duration.ofSeconds(30))
                .build();
    }

    /** The wall clock in microseconds. */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }
}
