package io.batchconsumer.spring.autoconfigure;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An H2 file URL that lets H2 close the database in its own shutdown hook is warned about; one
 * that keeps it open, or another database, is not.
 */
@ExtendWith(OutputCaptureExtension.class)
@Tag("integration")
class H2ShutdownWarningTests {

	@Test
	void anH2FileUrlWithoutDbCloseOnExitIsWarnedAbout(CapturedOutput output) {
		TransportConfigurations.warnIfH2ClosesBeforeTheDrain("jdbc:h2:file:./data/app;WRITE_DELAY=0");
		assertThat(output).contains("add ;DB_CLOSE_ON_EXIT=FALSE");
	}

	@Test
	void aUrlThatKeepsTheDatabaseOpenOrIsNotAnH2FileIsNot(CapturedOutput output) {
		TransportConfigurations.warnIfH2ClosesBeforeTheDrain("jdbc:h2:file:./data/app;WRITE_DELAY=0;db_close_on_exit=false");
		TransportConfigurations.warnIfH2ClosesBeforeTheDrain("jdbc:postgresql://localhost/app");
		TransportConfigurations.warnIfH2ClosesBeforeTheDrain(null);
		assertThat(output).doesNotContain("DB_CLOSE_ON_EXIT");
	}

}
