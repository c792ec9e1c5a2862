package io.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.Date;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import org.junit.jupiter.api.Test;

import io.distlock.jdbc.clockfixture.JvmClockBinder;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The store never reads the JVM's clock: no class of {@code io.distlock.jdbc} reads the wall
 * clock, makes a date or binds a time into a statement, so every expiry and every comparison with
 * one is the database's ({@code clock_timestamp()} in the SQL). A JVM whose clock or time zone
 * is set apart from the database's therefore computes no lease differently (the clock and time
 * zone bugs of Spring Integration's registry, #3885 and #10906, come from such reads). Local
 * validity is the engine's, on {@code System.nanoTime()}.
 */
class JvmClockStructureTests {

	private static final Set<String> TIME_TYPES = Set.of(Instant.class.getName(), LocalDateTime.class.getName(),
			OffsetDateTime.class.getName(), ZonedDateTime.class.getName(), Date.class.getName(),
			Timestamp.class.getName(), java.sql.Date.class.getName());

	@Test
	void noStoreClassReadsTheJvmClockOrBindsATime() {
		String store = PostgresLockRegistry.class.getPackageName();
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages(store);
		noJvmTimeIn(store).check(classes);
	}

	@Test
	void ruleFindsAnExpiryComputedOnTheJvmClock() {
		// Negative control: a fixture that binds System.currentTimeMillis() + lease.
		String fixture = JvmClockBinder.class.getPackageName();
		JavaClasses binder = new ClassFileImporter().importPackages(fixture);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> noJvmTimeIn(fixture).check(binder))
			.withMessageContaining("currentTimeMillis")
			.withMessageContaining("setTimestamp");
	}

	private static ArchRule noJvmTimeIn(String packageName) {
		DescribedPredicate<JavaCall<?>> jvmTime = new DescribedPredicate<>(
				"read the JVM's clock, make a date or bind a time into a statement") {

			@Override
			public boolean test(JavaCall<?> call) {
				String owner = call.getTargetOwner().getName();
				String name = call.getName();
				return (owner.equals(System.class.getName()) && name.equals("currentTimeMillis"))
						|| (TIME_TYPES.contains(owner) && (name.equals("now") || name.equals("<init>")
								|| name.equals("valueOf") || name.equals("from")))
						|| call.getTargetOwner().isAssignableTo(Clock.class)
						|| (call.getTargetOwner().isAssignableTo(PreparedStatement.class)
								&& (name.equals("setTimestamp") || name.equals("setDate") || name.equals("setTime")
										|| name.equals("setObject")));
			}

		};
		return ArchRuleDefinition.noClasses().that().resideInAPackage(packageName).should().callCodeUnitWhere(jvmTime);
	}

}
