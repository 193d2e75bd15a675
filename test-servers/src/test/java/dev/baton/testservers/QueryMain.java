package dev.baton.testservers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/** A child JVM for {@link JvmProcessTest}: connects to a database URL and prints the server's answer. */
public final class QueryMain {
    private QueryMain() {}

    public static void main(String[] args) throws Exception {
        String password = args.length > 2 ? args[2] : null;
        try (Connection connection = DriverManager.getConnection(args[0], args[1], password);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT 40 + 2")) {
            rs.next();
            System.out.println("answer:" + rs.getInt(1));
        }
    }
}
