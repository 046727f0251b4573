// `npm run build`: dist/liken-stick.cjs, the one file the stick runs.
import { bundleCommand } from "../image-build/bundle.ts";

process.stdout.write(`${await bundleCommand()}\n`);
