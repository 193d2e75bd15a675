package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Finding dead letters in headless Chromium on the two local servers, as an operator does it: the search form (key,
 * error text, time of death, newest first), the previous and next pages, a row's page, and "requeue all that match"
 * through its confirmation to the result. The screenshots of the search in {@code docs/src/console.md} are taken here
 * (on PostgreSQL).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleSearchBrowserTest {
    @Parameter
    TestServer server;

    private static final Instant T0 = Instant.parse("2026-12-03T02:00:00Z");

    @Nested
    class Browser extends DatabaseSuite {
        private WebDriver driver;
        private ConsoleFixture f;

        @Override
        protected void setUp() {
            boolean present = new File(ConsoleBrowserTest.CHROMIUM).canExecute()
                    && new File(ConsoleBrowserTest.CHROMEDRIVER).canExecute();
            if (!present && System.getenv("CI") != null) {
                throw new AssertionError("CI: chromium and chromedriver are missing (.ci/run installs them)");
            }
            Assumptions.assumeTrue(present, "headless Chromium is not installed (Debian: chromium chromium-driver)");
            ChromeOptions options = new ChromeOptions()
                    .setBinary(ConsoleBrowserTest.CHROMIUM)
                    .addArguments(
                            "--headless=new",
                            "--no-sandbox",
                            "--disable-dev-shm-usage",
                            "--disable-gpu",
                            "--window-size=1280,900",
                            "--force-device-scale-factor=1");
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(ConsoleBrowserTest.CHROMEDRIVER))
                    .usingAnyFreePort()
                    .build();
            driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
        }

        @Override
        protected void tearDown() {
            if (driver != null) {
                driver.quit();
            }
        }

        @AfterEach
        void drop() {
            if (f != null) {
                f.close();
            }
            if (driver != null) {
                driver.manage().deleteAllCookies();
            }
        }

        private void screenshot(String name) throws IOException {
            if (server != TestServer.POSTGRES_LOCAL) {
                return; // one set of pictures for the docs
            }
            Path dir = Path.of("").toAbsolutePath();
            while (dir != null && !Files.isDirectory(dir.resolve("docs/src"))) {
                dir = dir.getParent();
            }
            if (dir == null) {
                throw new AssertionError("no docs/src above " + Path.of("").toAbsolutePath());
            }
            Path images = Files.createDirectories(dir.resolve("docs/src/images"));
            byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
            Files.write(images.resolve("console-" + name + ".png"), png);
        }

        private WebElement waitFor(By by) {
            return new WebDriverWait(driver, Duration.ofSeconds(10))
                    .until(ExpectedConditions.presenceOfElementLocated(by));
        }

        /** Clicks and waits until the page it was on is gone, so a wait that follows reads the new page. */
        private void clickAndLoad(By by) {
            WebElement page = driver.findElement(By.tagName("html"));
            driver.findElement(by).click();
            new WebDriverWait(driver, Duration.ofSeconds(10)).until(ExpectedConditions.stalenessOf(page));
        }

        private void backAndLoad() {
            WebElement page = driver.findElement(By.tagName("html"));
            driver.navigate().back();
            new WebDriverWait(driver, Duration.ofSeconds(10)).until(ExpectedConditions.stalenessOf(page));
        }

        private List<String> ids() {
            return driver.findElements(By.cssSelector("#dead tr[data-id]")).stream()
                    .map(e -> e.getAttribute("data-id").substring(1))
                    .toList();
        }

        @Test
        void anOperatorFindsTheRowsOpensOneAndRequeuesAllThatMatch() throws Exception {
            f = new ConsoleFixture(database(), "cn3_browse", true, 3, true, null, b -> {});
            for (int i = 1; i <= 8; i++) {
                f.insertDead(
                        String.format("ord-%02d", i),
                        i <= 6 ? "cust-7" : "cust-9",
                        i % 3 == 0 ? "HTTP 503 from the receiver" : "receiver 422: card 4111 declined for order " + i,
                        T0.plusSeconds(60L * i));
            }
            f.insert("ord-99", Sync.PENDING, 0, null, "pending");
            f.console.sample();
            driver.get(f.base());
            driver.manage().addCookie(new Cookie(ConsoleFixture.USER_COOKIE, "operator", "/"));
            driver.get(f.base() + "queue?q=" + f.queue.name());

            driver.findElement(By.name("key")).sendKeys("cust-7");
            driver.findElement(By.name("find")).sendKeys("422");
            new Select(driver.findElement(By.name("order"))).selectByValue("newest");
            clickAndLoad(By.xpath("//form[@id='dead-filter']//button"));
            waitFor(By.id("dead-count"));
            assertEquals(
                    "4 rows match this search.",
                    driver.findElement(By.id("dead-count")).getText());
            assertEquals(List.of("ord-05", "ord-04", "ord-02"), ids(), "newest first, three a page");
            screenshot("search");

            clickAndLoad(By.linkText("Next page"));
            waitFor(By.linkText("Previous page"));
            assertEquals(List.of("ord-01"), ids());
            clickAndLoad(By.linkText("Previous page"));
            waitFor(By.id("dead-count"));
            assertEquals(List.of("ord-05", "ord-04", "ord-02"), ids());

            clickAndLoad(By.linkText("ord-04"));
            waitFor(By.id("row"));
            String row = driver.findElement(By.tagName("main")).getText();
            assertTrue(row.contains("State: FAILED (a dead letter, died at 2026-12-03 02:04:00.000"), row);
            assertTrue(row.contains("receiver 422: card 4111 declined for order 4"), row);
            assertTrue(row.contains("\"amount\": 12.5"), row);
            screenshot("row");
            backAndLoad();
            waitFor(By.id("dead-count"));

            clickAndLoad(By.xpath("//button[text()='Requeue all that match\u2026']"));
            WebElement confirm = waitFor(By.id("confirm-text"));
            assertTrue(
                    confirm.getText().contains("error contains \"422\", key = \"cust-7\"")
                            && confirm.getText().contains("4 match now"),
                    confirm.getText());
            screenshot("requeue-matching-confirm");
            clickAndLoad(By.xpath("//button[text()='Confirm']"));
            WebElement result = waitFor(By.id("result"));
            assertTrue(result.getText().startsWith("Requeued 4 of the 4 dead rows that matched"), result.getText());
            screenshot("requeue-matching");
            for (String id : List.of("ord-01", "ord-02", "ord-04", "ord-05")) {
                assertEquals(Sync.PENDING, f.state(id), id);
            }
            assertEquals(List.of("ord-03", "ord-06", "ord-07", "ord-08"), f.deadIds());
        }
    }
}
