package dev.baton.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.examples.balance.BalanceExample;
import dev.baton.examples.parking.ParkingExample;
import dev.baton.examples.payment.PaymentExample;
import dev.baton.examples.support.ExampleMain;
import dev.baton.examples.tasks.TaskExample;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The example programs run to the end on one server of each product (their claims are proven by the example tests).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.baton.examples.Servers#oneOfEach")
class ExampleProgramsTest {
    /** The server of this run. */
    @Parameter
    TestServer server;

    @Test
    void paymentExample() throws Exception {
        String out = run(server, PaymentExample::run);
        assertTrue(out.contains("8 records for 8 paid orders"), out);
        // "reconciled" is printed once every order is COMPLETED: nothing is left claimed or unknown
        assertTrue(out.contains("inFlight=0, expiredLeases=0, dead=0, unknown=0"), out);
    }

    @Test
    void balanceExample() throws Exception {
        String out = run(server, BalanceExample::run);
        assertTrue(out.contains("reconciliation of Baton's books (users 3 and 4): 0 findings"), out);
    }

    @Test
    void parkingExample() throws Exception {
        String out = run(server, ParkingExample::run);
        assertTrue(out.contains("the success arrives late: REFUND"), out);
    }

    @Test
    void taskExample() throws Exception {
        String out = run(server, TaskExample::run);
        assertTrue(out.contains("task 7 ran 2 times"), out);
    }

    private static String run(Supplier<TestDatabase> server, ExampleMain.Body body) throws Exception {
        TestDatabase db = server.get();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ExampleMain.run(db.dataSource(), new PrintStream(bytes, true, StandardCharsets.UTF_8), body);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
