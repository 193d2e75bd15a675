import java.io.File;
import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Static map of a dialect module's compatibility tests: for each top-level test class, each (suite, server) pair it
 * runs, with the number of test methods (@Test, @TestFactory, @ParameterizedTest, @RepeatedTest, any @TestTemplate)
 * of the suite, and whether @RunsOn skips the pair. Suite = the test kit's abstract class the nested class extends.
 * Usage: java -cp CP SuiteMap.java TEST_CLASSES_DIR
 */
public class SuiteMap {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(p -> p.toString().endsWith(".class") && !p.getFileName().toString().contains("$"))
                    .forEach(p -> names.add(root.relativize(p).toString().replace(File.separatorChar, '.')
                            .replaceAll("\\.class$", "")));
        }
        TreeMap<String, String> out = new TreeMap<>();
        ClassLoader cl = SuiteMap.class.getClassLoader();
        Class<? extends Annotation> nested = load("org.junit.jupiter.api.Nested");
        Class<? extends Annotation> pclass = load("org.junit.jupiter.params.ParameterizedClass");
        Class<? extends Annotation> enumSource = load("org.junit.jupiter.params.provider.EnumSource");
        Class<?> suiteType = Class.forName("dev.baton.testkit.DatabaseSuite");
        for (String n : names) {
            Class<?> c = Class.forName(n, false, cl);
            if (Modifier.isAbstract(c.getModifiers())) continue;
            List<Class<?>> suites = nestedSuites(c, nested, suiteType);
            Class<? extends Annotation> cs = load("dev.baton.testkit.CompatibilityServers");
            if (c.isAnnotationPresent(cs)) {
                Object[] servers = (Object[]) cs.getMethod("value").invoke(c.getAnnotation(cs));
                for (Class<?> s : suites) {
                    for (Object server : servers) {
                        String name = ((Enum<?>) server).name();
                        if (runsOnSkips(s, name) == null) {
                            put(out, c, s, name, null);
                        } else {
                            put(out, c, s, name, "NO RUN");
                        }
                    }
                }
            } else if (c.isAnnotationPresent(pclass)) {
                Annotation es = c.getAnnotation(enumSource);
                String[] servers = (String[]) es.annotationType().getMethod("names").invoke(es);
                for (Class<?> s : suites) {
                    for (String server : servers) {
                        put(out, c, s, server, runsOnSkips(s, server));
                    }
                }
            } else if (suiteType.isAssignableFrom(c)) {
                Object inst = newInstance(c, null);
                put(out, c, c, serverOf(inst), null);
            } else if (!suites.isEmpty()) {
                Object outer = newInstance(c, null);
                for (Class<?> s : suites) {
                    Object inst = newInstance(s, outer);
                    put(out, c, s, serverOf(inst), null);
                }
            }
        }
        int total = 0, runs = 0;
        for (var e : out.entrySet()) {
            System.out.println(e.getKey() + "\t" + e.getValue());
        }
    }

    @SuppressWarnings("unchecked")
    static Class<? extends Annotation> load(String n) throws Exception {
        return (Class<? extends Annotation>) Class.forName(n);
    }

    static void put(TreeMap<String, String> out, Class<?> file, Class<?> suite, String server, String skip) {
        String key = suiteName(suite) + "\t" + server;
        String value = count(suite) + "\t" + file.getSimpleName() + "$" + suite.getSimpleName()
                + (skip == null ? "" : "\tSKIPPED(RunsOn)");
        String prev = out.put(key + (skip == null ? "" : "\tskip:" + file.getSimpleName()), value);
        if (prev != null) {
            out.put(key + "\tDUPLICATE:" + value, prev);
        }
    }

    static String suiteName(Class<?> s) {
        for (Class<?> c = s; c != null; c = c.getSuperclass()) {
            if (c.getPackageName().equals("dev.baton.testkit.compat") && Modifier.isAbstract(c.getModifiers())) {
                return c.getSimpleName();
            }
        }
        return s.getName();
    }

    static List<Class<?>> nestedSuites(Class<?> c, Class<? extends Annotation> nested, Class<?> suiteType) {
        Set<Class<?>> found = new LinkedHashSet<>();
        for (Class<?> t = c; t != null && t != Object.class; t = t.getSuperclass()) {
            for (Class<?> inner : t.getDeclaredClasses()) {
                if (inner.isAnnotationPresent(nested) && suiteType.isAssignableFrom(inner)) found.add(inner);
            }
        }
        return new ArrayList<>(found);
    }

    static int count(Class<?> s) {
        Set<String> seen = new LinkedHashSet<>();
        for (Class<?> c = s; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (isTest(m) && seen.add(m.getName() + Arrays.toString(m.getParameterTypes()))) {
                    // counted once, the most specific declaration
                }
            }
        }
        return seen.size();
    }

    static boolean isTest(Method m) {
        for (Annotation a : m.getAnnotations()) {
            String n = a.annotationType().getName();
            if (n.equals("org.junit.jupiter.api.Test") || n.equals("org.junit.jupiter.api.TestFactory")
                    || n.equals("org.junit.jupiter.api.TestTemplate")) return true;
            for (Annotation meta : a.annotationType().getAnnotations()) {
                String mn = meta.annotationType().getName();
                if (mn.equals("org.junit.jupiter.api.TestTemplate") || mn.equals("org.junit.jupiter.api.Test")) return true;
            }
        }
        return false;
    }

    /** Null when the suite runs on the server, else the RunsOn list. */
    static String runsOnSkips(Class<?> s, String server) throws Exception {
        Class<? extends Annotation> runsOn = load("dev.baton.testkit.RunsOn");
        for (Class<?> c = s; c != null; c = c.getSuperclass()) {
            Annotation a = c.getAnnotation(runsOn);
            if (a != null) {
                Object[] v = (Object[]) runsOn.getMethod("value").invoke(a);
                for (Object o : v) if (((Enum<?>) o).name().equals(server)) return null;
                return Arrays.toString(v);
            }
        }
        return null;
    }

    static Object newInstance(Class<?> c, Object outer) throws Exception {
        Constructor<?> k = outer == null ? c.getDeclaredConstructor() : c.getDeclaredConstructor(outer.getClass());
        k.setAccessible(true);
        return outer == null ? k.newInstance() : k.newInstance(outer);
    }

    static String serverOf(Object suite) throws Exception {
        Method m = Class.forName("dev.baton.testkit.DatabaseSuite").getDeclaredMethod("server");
        m.setAccessible(true);
        Object s = m.invoke(suite);
        return s instanceof Enum<?> e ? e.name() : String.valueOf(s);
    }
}
