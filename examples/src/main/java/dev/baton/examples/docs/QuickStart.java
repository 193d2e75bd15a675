package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.Condition;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class QuickStart {
    private static final Logger log = LoggerFactory.getLogger(QuickStart.class);

    enum Payment {
        PENDING(0),
        PAID(1),
        FAILED(2),
        EXPIRED(3);
        final int code;

        Payment(int code) {
            this.code = code;
        }
    }

    static final StateMachine<Payment> PAYMENT = StateMachine.of(Payment.class)
            .storedAs(p -> p.code) // int codes; default: the constant's name
            .allow(Payment.PENDING, Payment.PAID, Payment.FAILED, Payment.EXPIRED)
            .terminal(Payment.PAID, Payment.FAILED, Payment.EXPIRED)
            .build();

    private final StateTable<Payment> orders;

    QuickStart(DataSource dataSource) {
        Baton baton = Baton.using(dataSource); // dialect found from the connection
        orders = baton.table("orders").id("id").state("payment_status", PAYMENT);
        orders.verify(); // id and state columns; else throws SchemaMismatchException with the DDL to fix them
    }

    /** The gateway callback, possibly duplicated, possibly late. */
    TransitionResult<Payment> onPaid(long orderId, String gatewayTxId) {
        TransitionResult<Payment> r = orders.transition(orderId, Payment.PENDING, Payment.PAID)
                .set("payment_transaction_id", gatewayTxId) // unique: a second order gets Conflict
                .setNow("paid_at") // database clock
                .apply(); // or .apply(connection) inside your transaction
        if (r instanceof TransitionResult.Rejected<Payment> late) {
            log.warn("order {} is already {}", late.id(), late.current()); // e.g. EXPIRED before the callback came
        } else if (r instanceof TransitionResult.Conflict<Payment> c) {
            log.error("gateway transaction reused, constraint {}", c.constraint());
        } // Applied, AlreadyInTarget, InDoubt (the row is PAID; which call moved it is unknown): acknowledge
        return r;
    }

    /** The expiry sweep: PENDING older than the payment window -> EXPIRED, in batches that skip locked rows. */
    long expireUnpaid(Duration window) {
        return orders.bulk(Payment.PENDING, Payment.EXPIRED)
                .where(Condition.olderThan("created_at", window))
                .apply()
                .rows();
    }

    /** Three new orders, the callbacks a gateway may send for them, and the sweep; what each step returned. */
    static List<Object> run(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement delete = c.prepareStatement("DELETE FROM orders WHERE id BETWEEN 1 AND 3");
                PreparedStatement insert = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
            delete.executeUpdate(); // the orders of an earlier run: each run starts afresh
            for (long id = 1; id <= 3; id++) {
                insert.setLong(1, id);
                insert.executeUpdate();
            }
        }
        QuickStart app = new QuickStart(dataSource);
        return List.of(
                app.onPaid(1, "gw-1"), // Applied
                app.onPaid(1, "gw-1"), // AlreadyInTarget: the gateway called twice
                app.onPaid(2, "gw-1"), // Conflict: one gateway transaction for two orders
                app.expireUnpaid(Duration.ZERO), // 2 (orders 2 and 3); in production Duration.ofMinutes(15)
                app.onPaid(3, "gw-3")); // Rejected: order 3 expired before its callback came
    }

    public static void main(String[] args) throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource(); // MariaDB: new MariaDbDataSource(url)
        dataSource.setUrl(args.length > 0 ? args[0] : "jdbc:postgresql://127.0.0.1:5432/test");
        dataSource.setUser(args.length > 1 ? args[1] : "postgres");
        dataSource.setPassword(args.length > 2 ? args[2] : "");
        run(dataSource).forEach(System.out::println);
    }
}
