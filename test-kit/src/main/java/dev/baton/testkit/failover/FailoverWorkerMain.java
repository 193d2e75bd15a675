package dev.baton.testkit.failover;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.ClaimedRow;
import dev.baton.Condition;
import dev.baton.EpochChange;
import dev.baton.Outcome;
import dev.baton.RetryPolicy;
import dev.baton.SendDurability;
import dev.baton.StateTable;
import dev.baton.Worker;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A worker process of the failover process suite: one {@link Worker} on the seed's queue with a
 * non-idempotent sink over {@code table} on the cluster, whose handler sends each row to a sink that is not on the
 * cluster ({@link FailoverSink}: tables on another server, so the record survives the failover): a plain sink that keeps
 * every call with its claim token and send token, and a fenced one that keeps the highest {@link
 * ClaimedRow#sendToken()} per row and refuses a call whose token is not above it. Nothing in it is particular to one
 * database: the cluster and the sink may be PostgreSQL or MariaDB. The completion stores {@code <process>:<claim token>} in the row's
 * {@code third_party_guid}, so the test can tell which claim's fenced write completed the row. The reconcile hook
 * raises the fenced sink's fence to the row's attempts, then answers from the plain sink.
 *
 * <p>Arguments: clusterUrl user table sinkUrl sinkUser sinkTable sendDurability process threads batch. Prints {@code
 * READY}, then {@code CLAIM <epoch millis> <rows>} for each claim that returned rows, {@code EPOCH <from> <to>
 * <marksNotKnownDurable> <lostMarks>} for each epoch change, and runs until it is killed.
 */
public final class FailoverWorkerMain {
    private FailoverWorkerMain() {}

    /** Runs the process until it is killed. */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String table = args[2];
        String sinkUrl = args[3];
        String sinkUser = args[4];
        String sink = args[5];
        SendDurability durability = SendDurability.valueOf(args[6]);
        String process = args[7];
        int threads = Integer.parseInt(args[8]);
        int batch = Integer.parseInt(args[9]);
        PrintStream out = System.out;

        try (HikariDataSource ds = pool(url, user, threads + 4);
                HikariDataSource sinkDs = pool(sinkUrl, sinkUser, threads + 2)) {
            Baton baton = Baton.builder(ds)
                    .listener(new BatonListener() {
                        @Override
                        public void onClaim(String queue, int count) {
                            if (count > 0) {
                                out.println("CLAIM " + System.currentTimeMillis() + " " + count);
                            }
                        }

                        @Override
                        public void onEpochChange(EpochChange c) {
                            out.println("EPOCH " + c.from().replace(' ', '_') + " " + c.to().replace(' ', '_') + " "
                                    + c.marksNotKnownDurable() + " " + c.lostMarks());
                        }
                    })
                    .build();
            ClaimQueue<Sync> queue = queue(baton, table, durability);
            Worker worker = baton.worker(queue)
                    .batchSize(batch)
                    .concurrency(threads)
                    .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                    .sweepInterval(Duration.ofMillis(500))
                    .handle(row -> {
                        FailoverSink.send(sinkDs, sink, row.longId(), row.token(), row.sendToken(), process);
                        return Outcome.<Sync>complete(Sync.COMPLETED)
                                .set("third_party_guid", process + ":" + row.token());
                    })
                    .reconcile(Long.class, id -> reconcile(ds, table, sinkDs, sink, id))
                    .start();
            out.println("READY");
            out.flush();
            Thread.sleep(Long.MAX_VALUE); // killed by the test
            worker.close();
        }
    }

    /**
     * The suite's queue: the seed's sending queue, retried quickly (a failover is not the row's fault), a 3 s lease and
     * the given send durability (waiting at most 1 s for the standby).
     */
    public static ClaimQueue<Sync> queue(Baton baton, String table, SendDurability durability) {
        return queue(baton, table, durability, Duration.ofSeconds(3));
    }

    /** The suite's queue with another lease (a claim's local deadline ends with it). */
    public static ClaimQueue<Sync> queue(Baton baton, String table, SendDurability durability, Duration lease) {
        StateTable<Payment> payments = baton.table(table).state("payment_status", Payment.MACHINE);
        return baton.<Sync>queue("failover-" + table)
                .table(table)
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(payments.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .sendDurability(durability, Duration.ofSeconds(1))
                .retry(RetryPolicy.fixed(Duration.ofMillis(100)).maxAttempts(1_000))
                .lease(lease)
                .build();
    }

    /** Raises the fence to the row's attempts on the writer (every send of the row so far), then asks the sink. */
    private static Outcome<Sync> reconcile(DataSource ds, String table, DataSource sinkDs, String sink, long id)
            throws SQLException {
        long attempts;
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT attempts FROM " + table + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                attempts = rs.getLong(1);
            }
        }
        return FailoverSink.raiseAndFind(sinkDs, sink, id, attempts)
                ? Outcome.<Sync>complete(Sync.COMPLETED).set("third_party_guid", "reconciled")
                : Outcome.release();
    }

    private static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }
}
