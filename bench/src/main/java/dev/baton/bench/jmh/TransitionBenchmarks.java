package dev.baton.bench.jmh;

import dev.baton.Baton;
import dev.baton.Condition;
import dev.baton.StateTable;
import dev.baton.Transition;
import dev.baton.TransitionResult;
import dev.baton.mysql.MySqlDialect;
import dev.baton.postgres.PostgresDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The client-side cost of one guarded transition: building it, finding its cached SQL, and the whole {@code apply()}
 * on a driver that does nothing, next to hand-written JDBC on the same stub.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TransitionBenchmarks {

    /** Which dialect renders the SQL (mysql adds the exact, binary guard for string codes). */
    @Param({"postgres", "mysql"})
    public String dialect;

    private StateTable<Payment> orders;
    private DataSource stub;
    private String rawSql;
    private int guardBinds;
    private long id = 1_000_042; // outside the Long cache, as real ids are

    /** Binds the payment machine (string codes, as in the DB workload) to {@code orders} on the stub driver. */
    @Setup
    public void setup() {
        stub = StubJdbc.dataSource();
        Baton baton = Baton.builder(stub)
                .dialect(dialect.equals("postgres") ? new PostgresDialect() : new MySqlDialect())
                .build();
        orders = baton.table("orders").id("id").state("payment_status", Payment.machine(false));
        rawSql = orders.transition(id, Payment.PENDING, Payment.PAID).sql();
        // the guard's binds beyond the target state and the id (none when Baton renders the source state as a literal)
        guardBinds = (int) rawSql.chars().filter(ch -> ch == '?').count() - 2;
    }

    /** {@code StateTable.transition(id, from, to)}: the legality check and the builder object. */
    @Benchmark
    public Transition<Payment> newTransition() {
        return orders.transition(id, Payment.PENDING, Payment.PAID);
    }

    /** {@code transition(…).sql()} on repeated calls: the cache key and the cache lookup (rendered once). */
    @Benchmark
    public String cachedSql() {
        return orders.transition(id, Payment.PENDING, Payment.PAID).sql();
    }

    /** The same with two extra columns, one of them the database clock (README example). */
    @Benchmark
    public String cachedSqlWithColumns() {
        return orders.transition(id, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", "tx-1")
                .setNow("paid_at")
                .sql();
    }

    /** The whole {@code transition(…).apply()} on the data source, with a driver that does nothing. */
    @Benchmark
    public TransitionResult<Payment> applyOnStubDriver() {
        return orders.transition(id, Payment.PENDING, Payment.PAID).apply();
    }

    /** Hand-written JDBC doing the same statement on the same stub: the floor for {@link #applyOnStubDriver}. */
    @Benchmark
    public int rawOnStubDriver() throws SQLException {
        try (Connection c = stub.getConnection();
                PreparedStatement ps = c.prepareStatement(rawSql)) {
            ps.setString(1, "PAID");
            ps.setLong(2, id);
            for (int i = 0; i < guardBinds; i++) {
                ps.setString(3 + i, "PENDING");
            }
            return ps.executeUpdate();
        }
    }

    /** A bulk transition's SQL, which is rendered on every {@code apply()} (once per sweep, not per batch). */
    @Benchmark
    public List<String> bulkSql() {
        return orders.bulk(Payment.PENDING, Payment.EXPIRED)
                .where(Condition.olderThan("created_at", Duration.ofMinutes(15)))
                .sql();
    }
}
