import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { startDemoSocialProviders, type DemoSocialProviders } from '../../../scripts/demo-social-providers.js';
import { createGatehouse, type Gatehouse } from '../../../src/bootstrap/gatehouse.js';
import { freePort } from '../../../scripts/free-port.js';

export interface SocialStack {
  /** `http://127.0.0.1:<port>`: Gatehouse's public origin, also the browser's. */
  appOrigin: string;
  social: DemoSocialProviders;
  gatehouse: Gatehouse;
  /** Every line Gatehouse logged (level warn and above). */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The three vendor-shaped servers and a Gatehouse with Social1-3 pointed at them, as
 * `npm run demo` composes them (without the OpenID provider, and with the vendors' own
 * display names), all on free loopback ports.
 */
export async function startSocialStack(): Promise<SocialStack> {
  const appPort = await freePort();
  const appOrigin = `http://127.0.0.1:${appPort}`;
  const social = await startDemoSocialProviders(appOrigin);
  const logs: string[] = [];
  let gatehouse: Gatehouse | undefined;
  try {
    gatehouse = await createGatehouse({
      env: {
        NODE_ENV: 'test',
        // Gatehouse's built-in posture, whatever this project committed (scripts/cookie-posture.ts).
        ...COOKIE_POSTURE,
        ProjectTemplate__Hosting__PublicOrigin: appOrigin,
        ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
        ProjectTemplate__Logging__Level: 'warn',
        ...social.env,
      },
      logDestination: { write: (line: string) => void logs.push(line) },
    });
    await gatehouse.listen(appPort, '127.0.0.1');
  } catch (error) {
    await gatehouse?.shutdown();
    await social.close();
    throw error;
  }
  const running = gatehouse;
  return {
    appOrigin,
    social,
    gatehouse: running,
    logs,
    close: async () => {
      await running.shutdown();
      await social.close();
    },
  };
}
