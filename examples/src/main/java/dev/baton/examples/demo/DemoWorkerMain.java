package dev.baton.examples.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.examples.support.DatabaseKind;
import dev.baton.examples.support.ExampleSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A worker process of the demo ({@code --processes N}): the timer jobs of both designs, coordinating with the other
 * processes only through the database, and reaching the third party over HTTP. Prints {@code READY} once running,
 * stops when its standard input says {@code STOP} or ends, then prints {@code STOPPED}.
 *
 * <p>Arguments: jdbcUrl user password suffix hosts naiveThirdPartyUrl batonThirdPartyUrl (a {@code -} for an empty
 * user or password).
 */
public final class DemoWorkerMain {
    private DemoWorkerMain() {}

    /** Runs the process. */
    public static void main(String[] args) throws Exception {
        Demo.quietLogging();
        String url = args[0];
        String user = args[1].equals("-") ? null : args[1];
        String password = args[2].equals("-") ? "" : args[2];
        String suffix = args[3];
        int hosts = Integer.parseInt(args[4]);
        String naiveThirdParty = args[5];
        String batonThirdParty = args[6];
        try (HikariDataSource naivePool = pool(url, user, password, "naive", hosts + 2);
                HikariDataSource batonPool = pool(url, user, password, "baton", hosts * 3 + 4)) {
            NaiveDesign naive = new NaiveDesign(suffix, DatabaseKind.of(naivePool));
            Baton baton = Baton.using(batonPool);
            String orders = ExampleSchema.withSuffix(suffix).table("orders");
            try (TimerJobs jobs = new TimerJobs(
                    naive,
                    naivePool,
                    new HttpThirdParty(naiveThirdParty, "naive"),
                    baton,
                    orders,
                    new HttpThirdParty(batonThirdParty, "baton"),
                    hosts)) {
                System.out.println("READY");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !line.trim().equals("STOP")) {
                    // wait for the demo to say stop
                }
                System.out.println("STOPPED naive-errors=" + jobs.naiveErrors());
            }
        }
        System.out.flush();
    }

    private static HikariDataSource pool(String url, String user, String password, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("demo-worker-" + name);
        config.setJdbcUrl(url);
        if (user != null) {
            config.setUsername(user);
        }
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }
}
