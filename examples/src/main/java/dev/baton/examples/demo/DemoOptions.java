package dev.baton.examples.demo;

/**
 * The demo's command line.
 *
 * @param orders orders in the workload
 * @param workers timer-job hosts for each design, in all (at least one per process)
 * @param processes worker processes (0: the timer jobs run in the demo's own JVM)
 * @param jdbcUrl the database, or null for an embedded PostgreSQL
 * @param user the database user
 * @param password the database password
 * @param seed the workload's random seed
 * @param keep keep the demo's tables afterwards
 */
record DemoOptions(
        int orders, int workers, int processes, String jdbcUrl, String user, String password, long seed, boolean keep) {

    static final String USAGE = String.join(
            "\n",
            "usage: java -jar examples/target/baton-demo.jar [options]",
            "",
            "Runs seed 000 (payment callbacks racing a timer job that pushes paid orders to a third party that can",
            "never update a record) twice on the same workload: the naive design and Baton's. Prints the defects of",
            "each. Without --jdbc-url it starts an embedded PostgreSQL itself.",
            "",
            "  --orders N        orders in the workload (default 2000)",
            "  --workers N       timer-job hosts for each design (default 4), each with its own job thread",
            "                    (naive) or Baton worker (two handlers); spread over the --processes JVMs",
            "  --processes N     run the timer jobs in N worker JVMs that share only the database (default 0:",
            "                    in this JVM)",
            "  --jdbc-url URL    use this database, e.g. jdbc:postgresql://127.0.0.1:5432/test or",
            "                    jdbc:mariadb://127.0.0.1:3306/test",
            "  --user U          database user (default postgres for PostgreSQL, root for MariaDB and MySQL)",
            "  --password P      database password (default empty)",
            "  --seed S          workload seed (default 42): the same seed gives the same workload",
            "  --keep            keep the demo's tables (default: dropped at the end)",
            "  --help            this text");

    /** The options that take a value. */
    private static final java.util.Set<String> WITH_VALUE =
            java.util.Set.of("--orders", "--workers", "--processes", "--jdbc-url", "--user", "--password", "--seed");

    /**
     * Parses the arguments.
     *
     * @throws IllegalArgumentException with a message for the user
     */
    static DemoOptions parse(String... args) {
        int orders = 2000;
        int workers = 4;
        int processes = 0;
        String url = null;
        String user = null;
        String password = "";
        long seed = 42;
        boolean keep = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            boolean flag = name.equals("--keep") || name.equals("--help") || name.equals("-h");
            if (!flag && !WITH_VALUE.contains(name)) {
                throw new IllegalArgumentException("unknown option " + a);
            }
            String value = null;
            if (!flag) {
                if (a.contains("=")) {
                    value = a.substring(a.indexOf('=') + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new IllegalArgumentException(name + " needs a value");
                }
            }
            switch (name) {
                case "--orders" -> orders = number(name, value, 10, 1_000_000);
                case "--workers" -> workers = number(name, value, 1, 64);
                case "--processes" -> processes = number(name, value, 0, 16);
                case "--jdbc-url" -> url = value;
                case "--user" -> user = value;
                case "--password" -> password = value;
                case "--seed" -> seed = number(name, value, 0, Integer.MAX_VALUE);
                case "--keep" -> keep = true;
                case "--help", "-h" -> throw new HelpRequested();
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (url != null && !(url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:mariadb:"))) {
            throw new IllegalArgumentException(
                    "--jdbc-url must be a jdbc:postgresql: or jdbc:mariadb: URL (the drivers this demo ships)");
        }
        if (url != null && user == null) {
            user = url.startsWith("jdbc:postgresql:") ? "postgres" : "root";
        }
        workers = Math.max(workers, processes); // every worker JVM hosts at least one timer job per design
        return new DemoOptions(orders, workers, processes, url, user, password, seed, keep);
    }

    private static int number(String name, String value, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a number, was '" + value + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", was " + n);
        }
        return n;
    }

    /** Thrown by {@link #parse} for {@code --help}. */
    static final class HelpRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super("help", null, false, false);
        }
    }
}
