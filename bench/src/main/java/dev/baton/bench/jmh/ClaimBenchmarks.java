package dev.baton.bench.jmh;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.bench.claim.BatonDrainer;
import dev.baton.bench.claim.BatonDrainer.Job;
import dev.baton.postgres.PostgresDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The client-side cost of a 100-row claim and of completing it, on a driver that returns 100 generated rows and does
 * nothing else (PostgreSQL dialect: one statement each), next to hand-written JDBC doing the same calls: binding,
 * mapping each row to a {@link ClaimedRow} (id, attempt, one selected column), and the completion's fenced statement.
 * Divide by 100 for the cost per row.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClaimBenchmarks {
    static final int BATCH = 100;

    private ClaimQueue<Job> queue;
    private DataSource stub;
    private String claimSql;
    private String completeSql;
    private List<Decision<Job>> decisions;
    private List<Long> ids;
    private long token;

    /** A queue over {@code jobs} selecting one text column, on a stub returning {@value #BATCH} rows per query. */
    @Setup
    public void setup() {
        stub = StubJdbc.dataSource(BATCH, BATCH);
        Baton baton = Baton.builder(stub).dialect(new PostgresDialect()).build();
        queue = baton.<Job>queue("jobs")
                .table("jobs")
                .claim("state", BatonDrainer.MACHINE, Job.PENDING, Job.PROCESSING)
                .select("payload")
                .deadState(Job.DEAD)
                .lease(Duration.ofMinutes(5))
                .build();
        claimSql = queue.claimSql(BATCH).get(0);
        decisions = new ArrayList<>();
        ids = new ArrayList<>();
        for (ClaimedRow<Job> r : queue.claim(BATCH)) {
            decisions.add(new Decision<>(r, Outcome.complete(Job.DONE)));
            ids.add(((Number) r.id()).longValue());
        }
        token = decisions.get(0).row().token();
        completeSql = "UPDATE \"jobs\" SET \"state\" = ?, \"lease_until\" = NULL WHERE \"id\" IN ("
                + String.join(", ", Collections.nCopies(BATCH, "?")) + ") AND \"claim_token\" = ? AND \"state\" = 1";
    }

    /** {@code ClaimQueue.claim(100)}: token, binds, the statement, and 100 rows mapped to {@link ClaimedRow}s. */
    @Benchmark
    public List<ClaimedRow<Job>> claim100() {
        return queue.claim(BATCH);
    }

    /** The same claim by hand: bind, execute, read id, attempt and the column of each row into a record. */
    @Benchmark
    public List<Claimed> rawClaim100() throws SQLException {
        long t = (ThreadLocalRandom.current().nextLong() >>> 1) + 1;
        try (Connection c = stub.getConnection();
                PreparedStatement ps = c.prepareStatement(claimSql)) {
            ps.setInt(1, 1);
            ps.setLong(2, t);
            List<Claimed> out = new ArrayList<>(BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Claimed(rs.getLong(1), rs.getInt(2), rs.getString(3), t));
                }
            }
            return out;
        }
    }

    /** {@code ClaimQueue.applyAll} completing the 100 rows of one claim: checks, one fenced statement, results. */
    @Benchmark
    public List<LeaseResult<Job>> completeAll100() {
        return queue.applyAll(decisions);
    }

    /** The same completion by hand: one statement binding the 100 ids and the token. */
    @Benchmark
    public int rawCompleteAll100() throws SQLException {
        try (Connection c = stub.getConnection();
                PreparedStatement ps = c.prepareStatement(completeSql)) {
            ps.setInt(1, 2);
            for (int i = 0; i < ids.size(); i++) {
                ps.setLong(i + 2, ids.get(i));
            }
            ps.setLong(ids.size() + 2, token);
            return ps.executeUpdate();
        }
    }

    /** A hand-written claimed row. */
    public record Claimed(long id, int attempt, String payload, long token) {}
}
